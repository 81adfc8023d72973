import { useState } from 'preact/hooks';
import { clock } from '../format.ts';
import { useFocusOnMount } from '../hooks.ts';
import type { Segment } from '../types.ts';
import { SaveOrCancel } from './save-or-cancel.tsx';

/** Leaves an in-place editor with Escape, as its Cancel button does. */
function escapeTo(onCancel: () => void) {
  return (event: KeyboardEvent) => {
    if (event.key === 'Escape') onCancel();
  };
}

/** The segment's text in a field, to correct what the recogniser heard. */
export function TextEditor({
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
      onKeyDown={escapeTo(onCancel)}
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

export interface SpeakerChoice {
  label: string;
  name: string;
}

/** Who said the segment: one of the transcript's speakers, or a new one (the next free label). */
export function SpeakerChooser({
  segment,
  current,
  speakers,
  newLabel,
  onSave,
  onCancel,
}: {
  segment: Segment;
  current: string;
  speakers: SpeakerChoice[];
  newLabel: string;
  onSave(label: string): void;
  onCancel(): void;
}) {
  const others = speakers.filter((speaker) => speaker.label !== current);
  const [choice, setChoice] = useState(others[0]?.label ?? newLabel);
  const focus = useFocusOnMount<HTMLSelectElement>();
  const id = `speaker-of-${segment.start_ms}`;
  return (
    <form
      class="editor chooser"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(choice);
      }}
      onKeyDown={escapeTo(onCancel)}
    >
      <label for={id}>Who says this?</label>
      <select id={id} value={choice} onChange={(event) => setChoice(event.currentTarget.value)} ref={focus}>
        {others.map((speaker) => (
          <option key={speaker.label} value={speaker.label}>
            {speaker.name}
          </option>
        ))}
        <option value={newLabel}>A new speaker ({newLabel})</option>
      </select>
      <SaveOrCancel onCancel={onCancel} save="Change speaker" />
    </form>
  );
}

/** The segment's words as buttons: the one chosen starts the second part. */
export function SplitPicker({
  segment,
  words,
  onSplit,
  onCancel,
}: {
  segment: Segment;
  words: string[];
  onSplit(atWord: number): void;
  onCancel(): void;
}) {
  const focus = useFocusOnMount<HTMLButtonElement>();
  return (
    <fieldset class="editor splitter" onKeyDown={escapeTo(onCancel)}>
      <legend class="hint">
        Split the segment at {clock(segment.start_ms)}: choose the word that starts the second part.
      </legend>
      <p class="words">
        <span>{words[0]}</span>
        {words.slice(1).map((word, index) => (
          <button
            key={index}
            type="button"
            class="word"
            ref={index === 0 ? focus : undefined}
            onClick={() => onSplit(index + 1)}
          >
            <span class="visually-hidden">Split before </span>
            {word}
            <span class="visually-hidden"> (word {index + 2})</span>
          </button>
        ))}
      </p>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}
