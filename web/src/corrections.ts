import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiError } from './api.ts';
import { useApp } from './context.ts';
import { messageOf } from './hooks.ts';
import { sameSegments, withHeldWords } from './speakers.ts';
import type { Note, Segment, Transcription } from './types.ts';

/**
 * Corrections of a transcript and renames of its speakers, one at a time, each sent against the
 * newest ETag the app holds. A 412 is only "someone else changed it" when what the user saw really
 * changed: after the user's own change (a rename alters the note's and, on some services, the
 * transcript's ETag; a correction alters the note's) the segments or the name are still as shown, so
 * the change is sent again, once, against the ETag read afresh.
 */

export interface TranscriptState {
  data: Transcription;
  etag: string | null;
}

export interface NoteState {
  note: Note;
  etag: string | null;
}

/** What an answer said is now current; the page shows it and reloads the rest. */
export interface Saved {
  transcript?: TranscriptState;
  note?: NoteState;
}

export type TranscriptEdit =
  | { op: 'replace_text'; segment: number; text: string }
  | { op: 'set_speaker'; segment: number; speaker: string }
  | { op: 'set_speakers'; segments: number[]; speaker: string }
  | { op: 'merge'; segment: number }
  | { op: 'split'; segment: number; at_word: number }
  | { op: 'merge_speakers'; speaker: string; into: string };

export interface Corrections {
  /** What is being saved (for the pending state), or null. Changes asked for meanwhile wait their turn. */
  pending: string | null;
  /** Whether the newest change of this session is a rename, which Undo then reverts. */
  renameToUndo: boolean;
  /** Applies the edits; `what` names the change for the undo that may follow ("the split at 0:12"). */
  edit(edits: TranscriptEdit[], what: string, done: string): Promise<boolean>;
  /** Undoes this session's newest change (a rename or a correction), else the transcript's last correction. */
  undo(): Promise<boolean>;
  rename(label: string, name: string): Promise<boolean>;
}

/** A change made in this session, newest last, so that Undo can revert it and say what it undid. */
interface Made {
  what: string;
  /** A rename: the label and the name it had before (null: none, the label showed). */
  rename?: { label: string; previous: string | null };
}

class ChangedMeanwhile extends Error {}

function preconditionFailed(error: unknown): boolean {
  return error instanceof ApiError && error.status === 412;
}

export function useCorrections({
  noteId,
  transcript,
  noteEtag,
  speakerNames,
  onSaved,
}: {
  noteId: string;
  transcript: TranscriptState;
  noteEtag: string | null;
  speakerNames: Record<string, string>;
  onSaved(saved: Saved): void;
}): Corrections {
  const { api, announce } = useApp();
  const [pending, setPending] = useState<string | null>(null);
  // One change at a time, in the order asked: each is sent against what the one before left.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  // The newest state known: an answer's at once, the page's once it has drawn it (or read it again).
  const latest = useRef({ transcript, noteEtag, speakerNames });
  useEffect(() => {
    latest.current = { transcript, noteEtag, speakerNames };
  }, [transcript, noteEtag, speakerNames]);
  const [made, setMade] = useState<Made[]>([]);
  const history = useRef<Made[]>([]);
  const remember = (next: Made[]) => {
    history.current = next;
    setMade(next);
  };
  const transcriptPath = `/v1/notes/${noteId}/transcription`;

  const save = (saved: Saved) => {
    if (saved.transcript) latest.current = { ...latest.current, transcript: saved.transcript };
    if (saved.note) {
      latest.current = {
        ...latest.current,
        noteEtag: saved.note.etag,
        speakerNames: saved.note.note.speaker_names,
      };
    }
    onSaved(saved);
  };

  function run(what: string, action: () => Promise<string>): Promise<boolean> {
    const turn = queue.current.then(async () => {
      setPending(what);
      try {
        announce(await action());
        return true;
      } catch (error) {
        announce(messageOf(error));
        return false;
      } finally {
        setPending(null);
      }
    });
    queue.current = turn;
    return turn;
  }

  /**
   * POSTs a change of the transcript. `seen`: the segments the user acted on (indices count in
   * them); the change is only sent where they are still what the service holds.
   */
  async function changeTranscript(path: string, body: unknown, seen?: Segment[]): Promise<TranscriptState> {
    const { transcript: shown } = latest.current;
    if (seen && !sameSegments(seen, shown.data.conversation_segments)) {
      throw new ChangedMeanwhile(
        'Your previous correction changed the segments first, so this one was not applied: make it again on the transcript as it is now.',
      );
    }
    const send = async (etag: string | null) => {
      const answer = await api.request<Transcription>(path, { method: 'POST', ifMatch: etag, body });
      return { data: answer.data, etag: answer.etag };
    };
    try {
      return await send(shown.etag);
    } catch (error) {
      if (!preconditionFailed(error)) throw error;
      const fresh = await readTranscript(api, transcriptPath);
      if (!sameSegments(shown.data.conversation_segments, fresh.data.conversation_segments)) {
        save({ transcript: fresh });
        throw new ChangedMeanwhile(
          'Someone else changed this transcript meanwhile: it was reloaded. Check it, then make your correction again.',
        );
      }
      return send(fresh.etag);
    }
  }

  /** Names the label (null: takes its name away), if it still has the name the user saw. */
  async function nameSpeaker(label: string, name: string | null): Promise<void> {
    const shown = latest.current.speakerNames[label] ?? label;
    const send = async (etag: string | null) => {
      const answer = await api.request<Note>(`/v1/notes/${noteId}`, {
        method: 'PATCH',
        ifMatch: etag,
        body: { speaker_names: { [label]: name } },
      });
      return { note: answer.data, etag: answer.etag };
    };
    let saved: NoteState;
    try {
      saved = await send(latest.current.noteEtag);
    } catch (error) {
      if (!preconditionFailed(error)) throw error;
      // The note changed since it was read (the user's own correction does that): only a
      // different name for this speaker is someone else's change to keep.
      const fresh = await api.request<Note>(`/v1/notes/${noteId}`);
      const now = fresh.data.speaker_names[label] ?? label;
      if (now !== shown) {
        save({ note: { note: fresh.data, etag: fresh.etag } });
        throw new ChangedMeanwhile(`Someone else renamed ${shown} to ${now} meanwhile: it was reloaded.`);
      }
      saved = await send(fresh.etag);
    }
    // The note's answer holds the transcript with the new name: shown at once; its ETag stays the
    // one read (a rename does not renumber segments, so corrections by index stay right). That
    // transcript comes without its words, so the held one's are kept: the unsure marks stay.
    const renamed = saved.note.transcription;
    const held = latest.current.transcript;
    save({
      note: saved,
      ...(renamed ? { transcript: { data: withHeldWords(renamed, held.data), etag: held.etag } } : {}),
    });
  }

  return {
    pending,
    renameToUndo: made.at(-1)?.rename !== undefined,
    edit: (edits, what, done) => {
      const seen = latest.current.transcript.data.conversation_segments;
      return run(`Saving ${what}…`, async () => {
        const saved = await changeTranscript(`${transcriptPath}/edits`, { edits }, seen);
        remember([...history.current, { what }]);
        save({ transcript: saved });
        return done;
      });
    },
    undo: () =>
      run('Undoing…', async () => {
        const last = history.current.at(-1);
        if (last?.rename) {
          await nameSpeaker(last.rename.label, last.rename.previous);
        } else {
          save({ transcript: await changeTranscript(`${transcriptPath}/undo`, { to: 'previous' }) });
        }
        remember(history.current.slice(0, -1));
        return last ? `Undone: ${last.what}` : 'The last correction was undone';
      }),
    rename: (label, name) =>
      run(`Renaming ${speakerNames[label] ?? label}…`, async () => {
        const before = latest.current.speakerNames[label] ?? null;
        const shown = before ?? label;
        await nameSpeaker(label, name);
        remember([
          ...history.current,
          { what: `the rename of ${shown} to ${name}`, rename: { label, previous: before } },
        ]);
        return `${shown} is now ${name}`;
      }),
  };
}

async function readTranscript(api: Api, path: string): Promise<TranscriptState> {
  const answer = await api.request<Transcription>(path);
  return { data: answer.data, etag: answer.etag };
}
