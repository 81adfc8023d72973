import type { IndexPartition } from '../ports/search-index.ts';
import type { DomainDeps } from './deps.ts';
import { termFrequencies } from './search-terms.ts';
import { readTranscriptionOfJob } from './stored-results.ts';

/**
 * Brings a note's entry in the index in line with the note and its current transcript: in the active
 * partition when it is active and its transcription is completed, in the trashed partition when it is
 * trashed with a completed transcription (searchable on request, never seen by Ask), absent otherwise.
 * Trashing or restoring moves the note's postings from one partition to the other. Called where that
 * can change (a transcript completes or is corrected, a note is renamed, trashed or restored); safe to
 * call any number of times. A changed title or transcript is updated in place, term by term, and the
 * content's version (the later of the note's and the transcript's last change, both strictly
 * increasing) lets the newest content win when two of these calls overlap. Ask and search also check
 * each note they return, so a lagging index can cost recall but never leak a trashed or deleted note.
 */
export async function syncNoteIndex(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const wanted = await indexableTranscription(deps, accountId, noteId);
    if (!wanted) return deps.search.remove(accountId, noteId);
    const current = await deps.search.indexedIn(accountId, noteId);
    if (current && current !== wanted.partition) await deps.search.remove(accountId, noteId);
    const document = { ...termFrequencies(`${wanted.title}\n${wanted.text}`), version: wanted.version };
    await deps.search.add(accountId, noteId, document, wanted.partition);
    if (current === wanted.partition) return;
    // The note may have been trashed, restored or deleted while it was being added: check once more.
  }
}

async function indexableTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<{ title: string; text: string; partition: IndexPartition; version: number } | null> {
  const found = await deps.notes.getNoteWithItems(accountId, noteId);
  const job = found?.jobs.get('transcription');
  if (!found || job?.status !== 'completed') return null;
  const { note } = found;
  const transcription = await readTranscriptionOfJob(deps, accountId, noteId, job);
  if (transcription === 'unreadable') return null;
  return {
    title: note.title,
    text: transcription.full_text,
    partition: note.state,
    version: Math.max(note.updated_at, job.updated_at),
  };
}
