import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWhisperTestModel } from '../../scripts/whisper-test-model.ts';

/**
 * The small random-weight whisper.cpp model (scripts/whisper-test-model.ts), written once per machine:
 * the same bytes every time, so test runs share it. Its words are nonsense; it proves the plumbing.
 */
export async function whisperTestModel(): Promise<string> {
  const path = join(tmpdir(), 'notes-whisper-test-model', 'ggml-random-weights.bin');
  const present = await access(path).then(
    () => true,
    () => false,
  );
  return present ? path : writeWhisperTestModel(path);
}
