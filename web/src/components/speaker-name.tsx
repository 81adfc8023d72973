import { useEffect, useRef, useState } from 'preact/hooks';
import { useFocusOnMount } from '../hooks.ts';

/**
 * A speaker's name; activating it turns it into a field, right there, to rename the speaker. The
 * rename is of the label (`Speaker 2`), so a speaker can be renamed again and again.
 */
export function SpeakerName({
  label,
  name,
  colour,
  onRename,
}: {
  label: string;
  name: string;
  colour: number;
  onRename(name: string): Promise<boolean>;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  const button = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // Back from the field, focus returns to the name it renamed.
  useEffect(() => {
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
      onChange={setValue}
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
  onChange,
  onDone,
}: {
  id: string;
  name: string;
  value: string;
  onChange(value: string): void;
  /** The new name, or null when cancelled. */
  onDone(renamed: string | null): void;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
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
    </form>
  );
}
