import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { layOutTurns, wavFile } from '../fixtures/pcm.ts';
import { loadPhrases, type Phrase, type VoiceName } from '../fixtures/real-voices/voices.ts';

/**
 * Recordings for voice profiles: one person's voice in two recordings of different phrases, another
 * person's, and the two in one conversation (long turns, the known voice first). Real voices the
 * project never tuned on: a LibriVox reader and the speaker of the cards recordings; built on demand
 * into test/fixtures/generated/voice-profiles/.
 */
export interface VoiceRecordings {
  first: string;
  second: string;
  other: string;
  together: string;
}

const KNOWN: VoiceName = 'librivox:reader';
const OTHER: VoiceName = 'cards:speaker';

/** About `seconds` of the voice's phrases, starting at phrase `from`, as 16 kHz samples. */
function speechOf(phrases: readonly Phrase[], from: number, seconds: number): Int16Array[] {
  const picked: Int16Array[] = [];
  let length = 0;
  for (let i = from; length < seconds * 16_000 && i < from + phrases.length; i++) {
    const phrase = phrases[i % phrases.length] as Phrase;
    picked.push(phrase.samples);
    length += phrase.samples.length;
  }
  return picked;
}

async function recording(dir: string, name: string, turns: { speech: Int16Array; speaker: string }[]) {
  const file = join(dir, `${name}.wav`);
  const { samples } = layOutTurns(
    turns.map((turn) => ({ ...turn, text: '' })),
    [400],
  );
  await writeFile(file, wavFile(samples));
  return file;
}

export async function voiceRecordings(): Promise<VoiceRecordings> {
  const dir = join(import.meta.dirname, '..', 'fixtures', 'generated', 'voice-profiles');
  await mkdir(dir, { recursive: true });
  const known = await loadPhrases(KNOWN, dir, 'ffmpeg');
  const other = await loadPhrases(OTHER, dir, 'ffmpeg');
  const half = Math.floor(known.length / 2);
  const asTurns = (parts: Int16Array[], speaker: string) => parts.map((speech) => ({ speech, speaker }));
  const together = [speechOf(known, half, 24), speechOf(other, 0, 24)];
  return {
    first: await recording(dir, 'known-first', asTurns(speechOf(known, 0, 20), 'known')),
    second: await recording(dir, 'known-second', asTurns(speechOf(known, half, 20), 'known')),
    other: await recording(dir, 'other', asTurns(speechOf(other, 0, 20), 'other')),
    together: await recording(dir, 'together', [
      ...asTurns(together[0]?.slice(0, 3) ?? [], 'known'),
      ...asTurns(together[1]?.slice(0, 3) ?? [], 'other'),
      ...asTurns(together[0]?.slice(3) ?? [], 'known'),
      ...asTurns(together[1]?.slice(3) ?? [], 'other'),
    ]),
  };
}
