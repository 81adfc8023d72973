import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { useApp } from '../context.ts';
import { clock } from '../format.ts';
import { messageOf, useFocusOnMount } from '../hooks.ts';
import type { Player } from '../player.ts';
import type { Segment, Transcription } from '../types.ts';
import { SaveOrCancel } from './save-or-cancel.tsx';

const PALETTE_SIZE = 8;

interface Props {
  noteId: string;
  transcription: Transcription;
  /** The transcript's ETag: corrections are sent against it, so a concurrent edit is never overwritten. */
  etag: string | null;
  /** The note's ETag: speaker names are the note's, renamed against it. */
  noteEtag: string | null;
  speakerNames: Record<string, string>;
  player: Player;
  /** After a change: reload the note and its transcript. */
  onChanged(): void;
}

/**
 * The transcript as a list of segments: speakers in distinct colours, a click plays from the segment,
 * the playing one is highlighted, a speaker can be renamed and a segment corrected in place.
 */
export function TranscriptView({
  noteId,
  transcription,
  etag,
  noteEtag,
  speakerNames,
  player,
  onChanged,
}: Props) {
  const { api, announce } = useApp();
  const [editing, setEditing] = useState<number | null>(null);
  const canUndo = (transcription.revision ?? 0) > 0;
  const speakers = [...new Set(transcription.conversation_segments.map((segment) => segment.speaker))];
  const playing = transcription.conversation_segments.findIndex(
    (segment) => player.positionMs >= segment.start_ms && player.positionMs < segment.end_ms,
  );

  const renameSpeaker = async (label: string, name: string) => {
    const current = speakerNames[label] ?? label;
    if (!name || name === current) return;
    try {
      await api.request(`/v1/notes/${noteId}`, {
        method: 'PATCH',
        ifMatch: noteEtag,
        body: { speaker_names: { [label]: name } },
      });
      announce(`${current} is now ${name}`);
      onChanged();
    } catch (error) {
      announce(messageOf(error));
    }
  };

  const correct = async (index: number, text: string) => {
    try {
      await api.request(`/v1/notes/${noteId}/transcription/edits`, {
        method: 'POST',
        ifMatch: etag,
        body: { edits: [{ op: 'replace_text', segment: index, text }] },
      });
      setEditing(null);
      announce('Correction saved');
      onChanged();
    } catch (error) {
      announce(
        error instanceof ApiError && error.status === 412
          ? 'Someone else changed this transcript meanwhile: it was reloaded, make your correction again'
          : messageOf(error),
      );
      if (error instanceof ApiError && error.status === 412) onChanged();
    }
  };

  const undo = async () => {
    try {
      await api.request<Transcription>(`/v1/notes/${noteId}/transcription/undo`, {
        method: 'POST',
        ifMatch: etag,
      });
      announce('Last correction undone');
      onChanged();
    } catch (error) {
      announce(messageOf(error));
    }
  };

  return (
    <section aria-labelledby="transcript-title" class="transcript">
      <div class="section-head">
        <h2 id="transcript-title">Transcript</h2>
        <div class="actions">
          {speakers.map((label) => (
            <SpeakerName
              key={label}
              name={speakerNames[label] ?? label}
              colour={speakers.indexOf(label) % PALETTE_SIZE}
              onRename={(name) => renameSpeaker(label, name)}
            />
          ))}
          <button type="button" class="quiet" disabled={!canUndo} onClick={undo}>
            Undo last correction
          </button>
        </div>
      </div>
      <ol class="segments">
        {transcription.conversation_segments.map((segment, index) => (
          <li
            key={`${segment.start_ms}-${index}`}
            class={`segment speaker-${speakers.indexOf(segment.speaker) % PALETTE_SIZE}${index === playing ? ' playing' : ''}`}
            aria-current={index === playing ? 'true' : undefined}
            data-start={segment.start_ms}
          >
            <button type="button" class="time" onClick={() => player.playFrom(segment.start_ms)}>
              <span class="visually-hidden">Play from </span>
              {clock(segment.start_ms)}
            </button>
            <span class="speaker">{speakerNames[segment.speaker] ?? segment.speaker}</span>
            {editing === index ? (
              <SegmentEditor
                segment={segment}
                onSave={(text) => correct(index, text)}
                onCancel={() => setEditing(null)}
              />
            ) : (
              <>
                <p class="text">{segment.text}</p>
                <button type="button" class="quiet edit" onClick={() => setEditing(index)}>
                  Correct<span class="visually-hidden"> the segment at {clock(segment.start_ms)}</span>
                </button>
              </>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function SegmentEditor({
  segment,
  onSave,
  onCancel,
}: {
  segment: Segment;
  onSave(text: string): void;
  onCancel(): void;
}) {
  const [text, setText] = useState(segment.text);
  const focus = useFocusOnMount<HTMLTextAreaElement>();
  const id = `edit-${segment.start_ms}`;
  return (
    <form
      class="editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (text.trim() && text.trim() !== segment.text) onSave(text.trim());
        else onCancel();
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <label for={id} class="visually-hidden">
        Corrected text of the segment at {clock(segment.start_ms)}
      </label>
      <textarea
        id={id}
        value={text}
        rows={3}
        onInput={(event) => setText(event.currentTarget.value)}
        ref={focus}
      />
      <SaveOrCancel onCancel={onCancel} />
    </form>
  );
}

/** A speaker's name; activating it turns it into a field, right there, to rename the speaker. */
function SpeakerName({
  name,
  colour,
  onRename,
}: {
  name: string;
  colour: number;
  onRename(name: string): void;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  if (!editing) {
    return (
      <button
        type="button"
        class={`quiet speaker-${colour}`}
        onClick={() => {
          setValue(name);
          setEditing(true);
        }}
      >
        {name}
        <span class="visually-hidden"> (rename)</span>
      </button>
    );
  }
  return (
    <SpeakerNameForm
      name={name}
      value={value}
      colour={colour}
      onChange={setValue}
      onDone={(renamed) => {
        setEditing(false);
        if (renamed !== null) onRename(renamed);
      }}
    />
  );
}

function SpeakerNameForm({
  name,
  value,
  colour,
  onChange,
  onDone,
}: {
  name: string;
  value: string;
  colour: number;
  onChange(value: string): void;
  /** The new name, or null when cancelled. */
  onDone(renamed: string | null): void;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
  const id = `speaker-name-${colour}`;
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        onDone(value.trim());
      }}
      onKeyDown={(event) => event.key === 'Escape' && onDone(null)}
    >
      <label for={id} class="visually-hidden">
        New name for {name}
      </label>
      <input
        id={id}
        value={value}
        maxLength={100}
        required
        onInput={(e) => onChange(e.currentTarget.value)}
        ref={focus}
      />
      <button type="submit" class="primary">
        Rename
      </button>
    </form>
  );
}
