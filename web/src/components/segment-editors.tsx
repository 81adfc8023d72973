import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { clock } from '../format.ts';
import { useFocusOnMount } from '../hooks.ts';
import type { Segment } from '../types.ts';
import { SaveOrCancel } from './save-or-cancel.tsx';

/** Leaves an in-place editor with Escape, as its Cancel button does. */
export function escapeTo(onCancel: () => void) {
  return (event: KeyboardEvent) => {
    if (event.key === 'Escape') onCancel();
  };
}

/**
 * The segment's text in a field, in place of the words, to correct what the recogniser heard: Enter
 * saves ("Saving…" until the service has it), Escape leaves it unchanged, and so does moving away
 * from it without changing anything. It opens with the caret where the person clicked.
 */
export function TextEditor({
  segment,
  caret,
  onSave,
  onCancel,
  onLeave,
}: {
  segment: Segment;
  caret: number | null;
  onSave(text: string): Promise<boolean>;
  onCancel(): void;
  onLeave(): void;
}) {
  const [text, setText] = useState(segment.text);
  const [saving, setSaving] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  // In the same task as the field appears: placed after the next paint, the caret would land after
  // keys already typed (a fast typist's select-all and typing, doubled at the end).
  useLayoutEffect(() => {
    const element = field.current;
    if (!element) return;
    element.focus();
    const at = caret ?? element.value.length;
    element.setSelectionRange(at, at);
  }, []);
  const id = `edit-${segment.start_ms}`;
  const changed = text.trim() !== '' && text.trim() !== segment.text;
  // A click elsewhere leaves an editor nothing was changed in (as clicking away from a text does); a
  // focus moved by the app (a rename finishing) does not, and a changed text waits for Save or Escape.
  const form = useRef<HTMLFormElement>(null);
  const leave = useRef(() => {});
  leave.current = () => {
    if (!saving && !changed) onLeave();
  };
  useEffect(() => {
    const away = (event: PointerEvent) => {
      if (event.target instanceof Node && !form.current?.contains(event.target)) leave.current();
    };
    document.addEventListener('pointerdown', away, true);
    return () => document.removeEventListener('pointerdown', away, true);
  }, []);
  const save = async () => {
    if (!changed) return onCancel();
    setSaving(true);
    // On success the editor closes; on failure it stays, with the text, and the reason is announced.
    if (!(await onSave(text.trim()))) setSaving(false);
  };
  return (
    <form
      ref={form}
      class="editor"
      aria-busy={saving}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={escapeTo(onCancel)}
    >
      <label for={id} class="visually-hidden">
        Corrected text of the segment at {clock(segment.start_ms)}
      </label>
      <textarea
        id={id}
        value={text}
        rows={2}
        readOnly={saving}
        aria-describedby={`${id}-hint`}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          // Enter saves, as in a chat box; a segment is one line of speech, so no newline is lost.
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void save();
          }
        }}
        ref={field}
      />
      <span class="hint meta" id={`${id}-hint`}>
        Enter saves, Escape cancels
      </span>
      <button type="submit" class="primary" disabled={saving}>
        {saving ? 'Saving…' : 'Save'}
      </button>
      <button type="button" onClick={onCancel} disabled={saving}>
        Cancel
      </button>
    </form>
  );
}

export interface SpeakerChoice {
  label: string;
  name: string;
}

/** The speakers to choose from, by name, and a new one under the next free label. */
export function SpeakerOptions({ speakers, newLabel }: { speakers: SpeakerChoice[]; newLabel: string }) {
  return (
    <>
      {speakers.map((speaker) => (
        <option key={speaker.label} value={speaker.label}>
          {speaker.name}
        </option>
      ))}
      <option value={newLabel}>A new speaker ({newLabel})</option>
    </>
  );
}

/** Who said the segment: one of the transcript's speakers, or a new one (the next free label). */
export function SpeakerChooser({
  segment,
  current,
  speakers,
  newLabel,
  following,
  onSave,
  onCancel,
}: {
  segment: Segment;
  current: string;
  speakers: SpeakerChoice[];
  newLabel: string;
  /** Segments after this one with the same speaker, which "up to the next change" also gives. */
  following: number;
  onSave(label: string, following: number): void;
  onCancel(): void;
}) {
  const others = speakers.filter((speaker) => speaker.label !== current);
  const [choice, setChoice] = useState(others[0]?.label ?? newLabel);
  const [throughRun, setThroughRun] = useState(false);
  const focus = useFocusOnMount<HTMLSelectElement>();
  const id = `speaker-of-${segment.start_ms}`;
  return (
    <form
      class="editor chooser"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(choice, throughRun ? following : 0);
      }}
      onKeyDown={escapeTo(onCancel)}
    >
      <label for={id}>Who says this?</label>
      <select id={id} value={choice} onChange={(event) => setChoice(event.currentTarget.value)} ref={focus}>
        <SpeakerOptions speakers={others} newLabel={newLabel} />
      </select>
      {following > 0 && (
        <label class="through-run">
          <input
            type="checkbox"
            checked={throughRun}
            onChange={(event) => setThroughRun(event.currentTarget.checked)}
          />{' '}
          Also the next {following === 1 ? 'segment' : `${following} segments`}, up to the next change of
          speaker
        </label>
      )}
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
