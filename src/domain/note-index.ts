import type { DomainDeps } from './deps.ts';
import { termFrequencies } from './search-terms.ts';
import { readTranscription } from './stored-results.ts';

/**
 * Brings a note's entry in the Ask index in line with the note: indexed when it is active and its
 * transcription is completed, absent otherwise. Called where that can change (a transcript completes,
 * a note is trashed or restored); safe to call any number of times. Ask also checks each note it
 * cites, so a lagging index can cost recall but never leak a trashed or deleted note.
 */
export async function syncNoteIndex(deps: DomainDeps, accountId: string, noteId: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const transcription = await searchableTranscription(deps, accountId, noteId);
    if (!transcription) return deps.search.remove(accountId, noteId);
    if (await deps.search.isIndexed(accountId, noteId)) return;
    await deps.search.add(
      accountId,
      noteId,
      termFrequencies(`${transcription.title}\n${transcription.text}`),
    );
    // The note may have been trashed or deleted while it was being added: check once more.
  }
}

async function searchableTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<{ title: string; text: string } | null> {
  const [note, job] = await Promise.all([
    deps.notes.getNote(accountId, noteId),
    deps.notes.getJob(accountId, noteId, 'transcription'),
  ]);
  if (note?.state !== 'active' || job?.status !== 'completed') return null;
  const transcription = await readTranscription(deps, accountId, noteId);
  return transcription === 'unreadable' ? null : { title: note.title, text: transcription.full_text };
}
