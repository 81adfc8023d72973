import { randomUUID } from 'node:crypto';
import type { DomainDeps } from './deps.ts';
import type { TagCondition } from './entity-tags.ts';
import { ConflictError, PreconditionFailedError, PreconditionRequiredError } from './errors.ts';
import type { Job, TranscriptPointer } from './job.ts';
import { transcriptLost } from './lost-results.ts';
import type { Note } from './note.ts';
import { syncNoteIndex } from './note-index.ts';
import { requireNoteWithItems } from './note-lookup.ts';
import { objectKeys } from './object-keys.ts';
import { isSpeakerLabel, labelForSpeaker, type SpeakerNames } from './speaker-labels.ts';
import { readRevision, readTranscriptionAt, type StoredRevision } from './stored-results.ts';
import { type ConversationSegment, type Transcription, withSegments } from './transcript.ts';
import { applyEdits, type SpeakerLabelOf, type TranscriptEdit } from './transcript-edits.ts';
import { type TranscriptionView, transcriptionView } from './transcript-exports.ts';
import { matchesRepresentationOf, matchesSegmentsOf } from './transcript-tags.ts';

/**
 * Corrections of a transcript, as revisions (see docs/api-decisions.md, "Correcting a transcript").
 *
 * The recogniser's `transcription.json` is never rewritten: it is revision 0. Each correction (or
 * list of them) writes the whole corrected transcript as a new object under its own random key,
 * then moves the transcription job's pointer to it with a conditional write. The pointer write is
 * the commit: of two corrections made against the same state exactly one moves it, the other gets
 * 412 and its object is removed. A crash between the two writes leaves an object nothing points to
 * (removed with the note or the transcription), never a key a later correction would collide with.
 */

/** What undoTranscriptionEdit goes back to: the revision before the current one, or the recogniser's. */
export type UndoTarget = 'previous' | 'original';

/** The recogniser's output as a pointer: what an uncorrected transcript's job means. */
const ORIGINAL: TranscriptPointer = { revision: 0, key: null, edited_at: null, highest: 0 };

export async function editTranscription(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  edits: readonly TranscriptEdit[],
  ifMatch: TagCondition | undefined,
): Promise<TranscriptionView> {
  // A speaker given by name means the speaker that had the name when the client read the transcript:
  // then the names must still be those it read.
  const byName = edits.some((edit) => speakersOf(edit).some((speaker) => !isSpeakerLabel(speaker.trim())));
  return changeTranscript(deps, accountId, noteId, { ifMatch, byName }, async ({ note, job, current }) => {
    const revision = (job.transcript?.highest ?? 0) + 1;
    const segments = applyEdits(
      current.conversation_segments,
      edits,
      labelOfName(note.speaker_names, current.conversation_segments),
    );
    const edited_at = deps.now();
    const { duration_ms, language, engine, notice, speakers_by } = current;
    const transcription = withSegments(
      {
        duration_ms,
        language,
        engine,
        revision,
        edited_at,
        notice: notice ?? null,
        ...(speakers_by ? { speakers_by } : {}),
      },
      segments,
    );
    const key = `${objectKeys.transcriptRevisions(accountId, noteId)}${revision}-${randomUUID()}.json`;
    const stored: StoredRevision = {
      ...transcription,
      revision,
      edited_at,
      previous: job.transcript ?? ORIGINAL,
    };
    await deps.blobs.putJson(key, stored);
    return {
      pointer: { revision, key, edited_at, highest: revision },
      transcription,
      written: key,
    };
  });
}

export async function undoTranscriptionEdit(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  to: UndoTarget,
  ifMatch: TagCondition | undefined,
): Promise<TranscriptionView> {
  return changeTranscript(deps, accountId, noteId, { ifMatch, byName: false }, async ({ job }) => {
    const now = job.transcript;
    if (!now?.key) {
      throw new ConflictError(
        'There is nothing to undo: this is the transcript as the recogniser made it (revision 0)',
      );
    }
    const back = to === 'original' ? ORIGINAL : await previousOf(deps, job, now.key);
    const pointer = { ...back, highest: now.highest };
    const transcription = await readTranscriptionAt(deps, accountId, noteId, pointer);
    if (transcription === 'unreadable') throw await lost(deps, job);
    return { pointer, transcription, written: null };
  });
}

async function previousOf(deps: DomainDeps, job: Job, key: string): Promise<TranscriptPointer> {
  const revision = await readRevision(deps, key);
  if (revision === 'unreadable') throw await lost(deps, job);
  return revision.previous;
}

interface CurrentState {
  note: Note;
  job: Job;
  current: Transcription;
}

interface NextState {
  pointer: TranscriptPointer;
  transcription: Transcription;
  /** The object this change wrote, removed again when the change loses the race. */
  written: string | null;
}

interface Precondition {
  ifMatch: TagCondition | undefined;
  /** The change names speakers by name: the names it was made against must still hold. */
  byName: boolean;
}

/**
 * The frame of every change: If-Match required and checked against the transcript as the API shows
 * it (getTranscription's JSON ETag, src/domain/transcript-tags.ts: its segments, and its names too
 * when the change names speakers by name), the new pointer written only if the job is still the one
 * read, then the Ask and search index brought in line with the new text.
 */
async function changeTranscript(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  { ifMatch, byName }: Precondition,
  next: (state: CurrentState) => Promise<NextState>,
): Promise<TranscriptionView> {
  const { note, jobs } = await requireNoteWithItems(deps, accountId, noteId);
  if (!ifMatch) throw new PreconditionRequiredError(IF_MATCH_REQUIRED);
  const job = jobs.get('transcription');
  if (job?.status !== 'completed') {
    throw new ConflictError(
      'Only a completed transcription can be corrected: submit audio with submitTranscription and wait for it to complete',
    );
  }
  const current = await readTranscriptionAt(deps, accountId, noteId, job.transcript);
  if (current === 'unreadable') throw await lost(deps, job);
  const shown = transcriptionView(current, note.speaker_names);
  if (!(byName ? matchesRepresentationOf(ifMatch, shown) : matchesSegmentsOf(ifMatch, shown))) {
    throw new PreconditionFailedError(byName ? TRANSCRIPT_OR_NAMES_CHANGED : TRANSCRIPT_CHANGED);
  }
  const { pointer, transcription, written } = await next({ note, job, current });
  // Strictly increasing, so that a change made in the same millisecond still fails the condition.
  const updated: Job = { ...job, transcript: pointer, updated_at: Math.max(deps.now(), job.updated_at + 1) };
  if (!(await deps.notes.replaceJob(job, updated))) {
    if (written) await deps.blobs.delete(written);
    throw new PreconditionFailedError(TRANSCRIPT_CHANGED);
  }
  // The index moves to the new words in place: only the terms the change touched are rewritten.
  await syncNoteIndex(deps, accountId, noteId);
  return transcriptionView(transcription, note.speaker_names);
}

/** A speaker given by the name the user chose (updateNote speaker_names) is stored as its label. */
function labelOfName(
  names: SpeakerNames | undefined,
  segments: readonly ConversationSegment[],
): SpeakerLabelOf {
  const present = new Set(segments.map((segment) => segment.speaker));
  return (speaker, edit) => labelForSpeaker(speaker, names, present, edit);
}

/** A transcript that cannot be read: the job says so, and the error says what to do. */
export async function lost(deps: DomainDeps, job: Job): Promise<ConflictError> {
  await transcriptLost(deps, job);
  return new ConflictError(
    'The stored transcript could not be read (missing or damaged). Submit the note again with the same note ID to transcribe its stored audio again.',
  );
}

const IF_MATCH_REQUIRED =
  'Send If-Match with the ETag of the transcript as you read it (getTranscription, JSON): corrections name segments by their position in that revision, so they are only applied to it.';

const TRANSCRIPT_CHANGED =
  'The transcript has changed since you read it (If-Match names an ETag that is no longer current), so nothing was changed. Read it again (getTranscription), reapply your correction to what it is now, and send its new ETag.';

const TRANSCRIPT_OR_NAMES_CHANGED =
  'The transcript or its speaker names have changed since you read it (If-Match names an ETag that is no longer current), so nothing was changed. This correction names a speaker by name, so the names must be those you read; give speaker labels (speaker_label) instead to correct regardless of renames. Read it again (getTranscription), reapply your correction and send its new ETag.';

/** The speakers an edit names (as labels or names). */
function speakersOf(edit: TranscriptEdit): string[] {
  if (edit.op === 'set_speaker' || edit.op === 'set_speakers') return [edit.speaker];
  if (edit.op === 'merge_speakers') return [edit.speaker, edit.into];
  return [];
}
