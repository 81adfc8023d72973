import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useFocusOnMount } from '../hooks.ts';

/** Another speaker of the transcript, one this one may turn out to be. */
export interface OtherSpeaker {
  label: string;
  name: string;
}

/**
 * A speaker's name; activating it turns it into a field, right there, to rename the speaker. The
 * rename is of the label (`Speaker 2`), so a speaker can be renamed again and again. The same
 * place says "this is the same person as…" when the recogniser heard one voice as two.
 */
export function SpeakerName({
  label,
  name,
  colour,
  others,
  onRename,
  onMerge,
}: {
  label: string;
  name: string;
  colour: number;
  others: OtherSpeaker[];
  onRename(name: string): Promise<boolean>;
  /** Gives every segment of this speaker to `into` (a label). */
  onMerge(into: string): Promise<boolean>;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  const button = useRef<HTMLButtonElement>(null);
  const wrapper = useRef<HTMLSpanElement>(null);
  const wasEditing = useRef(false);
  // Back from the field, focus returns to the name it renamed, in the same task (a layout effect),
  // unless the person has put it elsewhere meanwhile (a segment opened while the rename was saved).
  useLayoutEffect(() => {
    const focused = document.activeElement;
    const lost = !focused || focused === document.body || wrapper.current?.contains(focused);
    if (!editing && wasEditing.current && lost) button.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  // A click elsewhere closes a field nothing was typed in (it lies over the transcript); a name typed
  // waits for Rename or Escape.
  const untouched = useRef(true);
  untouched.current = value === name;
  useEffect(() => {
    if (!editing) return;
    const away = (event: PointerEvent) => {
      if (event.target instanceof Node && !wrapper.current?.contains(event.target) && untouched.current) {
        setEditing(false);
      }
    };
    document.addEventListener('pointerdown', away, true);
    return () => document.removeEventListener('pointerdown', away, true);
  }, [editing]);
  const id = `speaker-name-${label.replace(/\W+/g, '-')}`;
  // The name stays in place while its field is open (over the transcript, below the names), so
  // nothing on the page moves as the field opens, saves or closes.
  return (
    <span class="speaker-name" ref={wrapper}>
      <button
        ref={button}
        type="button"
        class={`quiet speaker-${colour}`}
        data-speaker-label={label}
        aria-expanded={editing}
        aria-controls={editing ? id : undefined}
        onClick={() => {
          if (editing) {
            setEditing(false);
            return;
          }
          setValue(name);
          setEditing(true);
        }}
      >
        {name}
        <span aria-hidden="true" class="pencil">
          {' ✎'}
        </span>
        <span class="visually-hidden"> (rename)</span>
      </button>
      {editing && (
        <SpeakerNameForm
          id={id}
          name={name}
          value={value}
          others={others}
          onChange={setValue}
          onMerge={async (into) => {
            if (await onMerge(into)) setEditing(false);
          }}
          onDone={async (renamed) => {
            if (renamed === null || renamed === '' || renamed === name) {
              setEditing(false);
              return;
            }
            // The field stays, with what was typed, when the rename did not go through.
            if (await onRename(renamed)) setEditing(false);
          }}
        />
      )}
    </span>
  );
}

function SpeakerNameForm({
  id,
  name,
  value,
  others,
  onChange,
  onDone,
  onMerge,
}: {
  id: string;
  name: string;
  value: string;
  others: OtherSpeaker[];
  onChange(value: string): void;
  /** The new name, or null when cancelled; resolves once saved (or refused). */
  onDone(renamed: string | null): Promise<void>;
  onMerge(into: string): Promise<void>;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
  const [into, setInto] = useState(others[0]?.label ?? '');
  // What is being saved, said on its own button: the field lies over the line that says it too.
  const [busy, setBusy] = useState<'rename' | 'merge' | null>(null);
  const run = async (what: 'rename' | 'merge', save: () => Promise<void>) => {
    if (busy) return;
    setBusy(what);
    await save();
    setBusy(null);
  };
  return (
    <form
      id={id}
      class="inline speaker-rename"
      aria-label={`Rename ${name}`}
      aria-busy={busy !== null}
      onSubmit={(event) => {
        event.preventDefault();
        void run('rename', () => onDone(value.trim()));
      }}
      onKeyDown={(event) => event.key === 'Escape' && !busy && void onDone(null)}
    >
      <label for={`${id}-field`} class="visually-hidden">
        New name for {name}
      </label>
      <input
        id={`${id}-field`}
        value={value}
        maxLength={100}
        required
        readOnly={busy !== null}
        onInput={(event) => onChange(event.currentTarget.value)}
        ref={focus}
      />
      <button type="submit" class="primary" aria-disabled={busy !== null ? 'true' : undefined}>
        {busy === 'rename' ? 'Renaming…' : 'Rename'}
      </button>
      {others.length > 0 && (
        <span class="same-person">
          <label for={`${id}-same`}>or the same person as</label>
          <select id={`${id}-same`} value={into} onChange={(event) => setInto(event.currentTarget.value)}>
            {others.map((other) => (
              <option key={other.label} value={other.label}>
                {other.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            aria-disabled={busy !== null ? 'true' : undefined}
            onClick={() => into && void run('merge', () => onMerge(into))}
          >
            {busy === 'merge' ? 'Merging…' : 'Merge'}
          </button>
        </span>
      )}
    </form>
  );
}
