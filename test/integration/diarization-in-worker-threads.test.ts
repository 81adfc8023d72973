/**
 * The diarizer runs in worker threads, off the event loop that serves the API: the results are exactly
 * those of the diarizer run in-process, for every kind of input the quality tests use.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Diarizer } from '../../src/adapters/speech/diarization/diarize.ts';
import { diarizeFile } from '../../src/adapters/speech/diarization/diarize-file.ts';
import { decodeToPcm } from '../../src/adapters/speech/ffmpeg.ts';
import { UnreadableAudioError } from '../../src/domain/errors.ts';
import { type ConversationFixture, ensureConversations } from '../fixtures/conversations/generate.ts';
import { notAudioFixture } from '../support/fixtures.ts';

let fixtures: ConversationFixture[];

beforeAll(async () => {
  fixtures = await ensureConversations();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function audioOf(name: string): string {
  const found = fixtures.find((fixture) => fixture.name === name);
  if (!found) throw new Error(`no fixture ${name}`);
  return found.audio;
}

/** The diarizer on this thread, fed by the same decoder: what diarizeFile did before threads. */
async function diarizeHere(path: string, speakersExpected?: number) {
  const decoding = decodeToPcm(path);
  const diarizer = new Diarizer();
  for await (const chunk of decoding.pcm) diarizer.push(chunk as Buffer);
  await decoding.done;
  return diarizer.finish(speakersExpected);
}

describe('diarization in worker threads', () => {
  const cases: Array<[string, number | undefined]> = [
    ['two-speakers', undefined],
    ['two-speakers-mp3', undefined],
    ['two-speakers-noisy', undefined],
    ['three-speakers', undefined],
    ['three-speakers', 2],
    ['single-speaker', undefined],
  ];
  for (const [name, hint] of cases) {
    it(`gives exactly the turns of the in-process diarizer: ${name}${hint ? `, ${hint} speakers expected` : ''}`, async () => {
      const path = audioOf(name);
      const threaded = await diarizeFile(path, hint ? { speakersExpected: hint } : {});
      expect(threaded.length).toBeGreaterThan(0);
      expect(threaded).toEqual(await diarizeHere(path, hint));
    });
  }

  it('does the computing in a thread: a broken diarizer on this thread changes nothing', async () => {
    const path = audioOf('two-speakers');
    const expected = await diarizeHere(path);
    vi.spyOn(Diarizer.prototype, 'push').mockImplementation(() => {
      throw new Error('the main thread must not diarize');
    });
    vi.spyOn(Diarizer.prototype, 'finish').mockImplementation(() => {
      throw new Error('the main thread must not diarize');
    });
    expect(await diarizeFile(path)).toEqual(expected);
  });

  it('fails with UnreadableAudioError on a file that is not audio', async () => {
    await expect(diarizeFile(await notAudioFixture())).rejects.toBeInstanceOf(UnreadableAudioError);
  });
});
