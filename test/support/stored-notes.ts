import { objectKeys } from '../../src/domain/object-keys.ts';
import { buildTranscription } from '../../src/domain/transcript.ts';
import type { Services } from '../../src/wiring/services.ts';

/**
 * A processed note written straight through the runtime's stores, as the transcription worker leaves
 * one (the note, a completed job, the transcript; one word per 400 ms), without recognising audio:
 * for benchmarks and tests that need many notes or a note in a state a flow would not leave.
 * The index is not touched: call syncNoteIndex or the index's load.
 */
export async function storeTranscribedNote(
  services: Pick<Services, 'notes' | 'blobs'>,
  account: string,
  note: { id: string; title: string; text: string; speakers_by?: string },
): Promise<void> {
  const now = Date.now();
  await services.notes.createNoteIfAbsent({
    account_id: account,
    note_id: note.id,
    title: note.title,
    state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    audio: null,
  });
  const words = note.text.split(/\s+/).map((text, i) => ({ text, start_ms: i * 400, end_ms: i * 400 + 350 }));
  const transcription = buildTranscription(words, {
    duration_ms: words.length * 400,
    engine: 'bench',
    language: 'en-US',
    speakers_by: note.speakers_by,
  });
  await services.blobs.putJson(objectKeys.transcription(account, note.id), transcription);
  await storeCompletedTranscription(services, account, note.id, now);
}

/** The transcription job of a note whose transcript is stored: completed, as a worker leaves it. */
export async function storeCompletedTranscription(
  services: Pick<Services, 'notes'>,
  account: string,
  noteId: string,
  now: number,
): Promise<void> {
  await services.notes.createJobIfAbsent({
    account_id: account,
    note_id: noteId,
    kind: 'transcription',
    status: 'completed',
    stage: 'completed',
    attempts: 1,
    created_at: now,
    updated_at: now,
    detail: null,
  });
}
