import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSpeakerTestModel } from '../../scripts/speaker-test-model.ts';
import { waitUntil } from './wait.ts';

/**
 * The tiny speaker-embedding model (scripts/speaker-test-model.ts), written once per
 * machine: the same bytes every time, so test runs share it. It tells apart only voices whose spectra differ; it
 * proves the plumbing.
 */
export async function speakerTestModel(): Promise<string> {
  const path = join(tmpdir(), 'notes-speaker-test-model', 'wespeaker-spectral-shape.onnx');
  const present = await access(path).then(
    () => true,
    () => false,
  );
  if (!present) await writeSpeakerTestModel(path);
  return path;
}

/** Resolves once the service's voice model was checked and loads (its /readyz `voices`). */
export async function voiceModelReady(baseUrl: string): Promise<void> {
  await waitUntil(
    async () => {
      const ready = (await (await fetch(`${baseUrl}/readyz`)).json()) as {
        voices: { state: string };
      };
      return ready.voices.state === 'ready';
    },
    'the voice model to be ready',
    60_000,
  );
}
