import { useLayoutEffect, useRef, useState } from 'preact/hooks';
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
  const wasEditing = useRef(false);
  // Back from the field, focus returns to the name it renamed, in the same task (a layout effect).
  useLayoutEffect(() => {
    if (!editing && wasEditing.current) button.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  if (!editing) {
    return (
      <button
        ref={button}
        type="button"
        class={`quiet speaker-${colour}`}
        data-speaker-label={label}
        onClick={() => {
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
    );
  }
  return (
    <SpeakerNameForm
      id={`speaker-name-${label.replace(/\W+/g, '-')}`}
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
  /** The new name, or null when cancelled. */
  onDone(renamed: string | null): void;
  onMerge(into: string): void;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
  const [into, setInto] = useState(others[0]?.label ?? '');
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
        onInput={(event) => onChange(event.currentTarget.value)}
        ref={focus}
      />
      <button type="submit" class="primary">
        Rename
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
          <button type="button" onClick={() => into && onMerge(into)}>
            Merge
          </button>
        </span>
      )}
    </form>
  );
}
