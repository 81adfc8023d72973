import type { ArtifactKind } from './artifacts.ts';

/**
 * Object-storage keys. Every object of a note lives under the note's prefix, which starts with the
 * account, so deleting a note is deleting one prefix and no key can cross accounts.
 */
const NOTE_PREFIX = /^accounts\/([0-9a-f-]{36})\/notes\/([0-9a-f-]{36})\/(.+)$/;

export const objectKeys = {
  notePrefix: (accountId: string, noteId: string) => `accounts/${accountId}/notes/${noteId}/`,
  audio: (accountId: string, noteId: string) => `${objectKeys.notePrefix(accountId, noteId)}audio`,
  transcription: (accountId: string, noteId: string) =>
    `${objectKeys.notePrefix(accountId, noteId)}transcription.json`,
  /** The voice of each speaker turn (RecognitionResult.voices), for findSimilarSegments. */
  voices: (accountId: string, noteId: string) => `${objectKeys.notePrefix(accountId, noteId)}voices.json`,
  /** Corrected revisions of the transcript; the recogniser's `transcription.json` is never rewritten. */
  transcriptRevisions: (accountId: string, noteId: string) =>
    `${objectKeys.notePrefix(accountId, noteId)}transcript-revisions/`,
  insights: (accountId: string, noteId: string) => `${objectKeys.notePrefix(accountId, noteId)}insights.json`,
  artifact: (accountId: string, noteId: string, kind: ArtifactKind) =>
    `${objectKeys.notePrefix(accountId, noteId)}artifacts/${kind}.json`,
  podcastAudio: (accountId: string, noteId: string) =>
    `${objectKeys.notePrefix(accountId, noteId)}artifacts/podcast.mp3`,
  artifactsPrefix: (accountId: string, noteId: string) =>
    `${objectKeys.notePrefix(accountId, noteId)}artifacts/`,
  /** Raw output of a speech provider's job (Amazon Transcribe), removed once the transcript is saved. */
  transcribeOutput: (accountId: string, noteId: string, attempt: number) =>
    `${objectKeys.notePrefix(accountId, noteId)}transcribe-output-${attempt}.json`,
};

/** Reads the account and note back from the key of an uploaded recording; null for any other key. */
export function parseAudioKey(key: string): { accountId: string; noteId: string } | null {
  const [, accountId, noteId, name] = NOTE_PREFIX.exec(key) ?? [];
  if (!accountId || !noteId || name !== 'audio') return null;
  return { accountId, noteId };
}
