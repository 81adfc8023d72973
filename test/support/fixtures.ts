import { ensureFixtures, type Fixtures } from '../fixtures/generate.ts';

let fixtures: Promise<Fixtures> | undefined;

function all(): Promise<Fixtures> {
  fixtures ??= ensureFixtures();
  return fixtures;
}

const CONTENT_TYPES = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

/** A flite recording of a committed script (about 25 s of clear speech), with its reference text. */
export async function speechFixture(
  voice: 'slt' | 'rms',
  format: 'wav' | 'mp3',
): Promise<{ file: string; contentType: string; script: string }> {
  const speech = (await all()).speech.find((candidate) => candidate.voice === voice);
  if (!speech) throw new Error(`no speech fixture for voice ${voice}`);
  return { file: speech[format], contentType: CONTENT_TYPES[format], script: speech.script };
}

/** Bytes that no decoder accepts. */
export async function notAudioFixture(): Promise<string> {
  return (await all()).notAudio;
}
