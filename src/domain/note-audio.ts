import type { DomainDeps } from './deps.ts';
import { ConflictError } from './errors.ts';
import { requireNote } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';

/** Long enough to start playing and seek a while; short enough that a leaked link soon dies. */
export const AUDIO_LINK_SECONDS = 600;

export interface NoteAudioLink {
  url: string;
  expires_at: number;
  content_type: string;
  size_bytes: number;
}

/**
 * A short-lived link to play the note's uploaded recording in a browser: a presigned GET of that one
 * object, inline, with the content type it was uploaded as. 404 for a note the account does not have;
 * 409 while nothing has been uploaded or after unreadable audio was discarded.
 */
export async function noteAudioLink(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
): Promise<NoteAudioLink> {
  const note = await requireNote(deps, accountId, noteId);
  const key = objectKeys.audio(accountId, noteId);
  const size = note.audio?.uploaded_at ? await deps.blobs.objectSize(key) : null;
  if (!note.audio || size === null) {
    throw new ConflictError(
      'The note has no uploaded audio: upload the recording to the URL submitTranscription returned first',
    );
  }
  const link = await deps.blobs.presignPlayback(key, note.audio.content_type, AUDIO_LINK_SECONDS);
  return { ...link, content_type: note.audio.content_type, size_bytes: size };
}
