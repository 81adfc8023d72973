import { useState } from 'preact/hooks';
import { escapeTo, type SpeakerChoice, SpeakerOptions } from './segment-editors.tsx';

/**
 * Segments selected with shift-click or Shift+↑ ↓, given to one speaker at once (one correction, one
 * Undo), as Descript reassigns a range. Escape or "Clear selection" ends the selection.
 */
export function SelectionBar({
  count,
  speakers,
  newLabel,
  onGive,
  onClear,
}: {
  count: number;
  speakers: SpeakerChoice[];
  newLabel: string;
  onGive(label: string): void;
  onClear(): void;
}) {
  const [choice, setChoice] = useState(speakers[0]?.label ?? newLabel);
  return (
    <form
      class="selection-bar"
      aria-label="Selected segments"
      onSubmit={(event) => {
        event.preventDefault();
        onGive(choice);
      }}
      onKeyDown={escapeTo(onClear)}
    >
      <p role="status">{count === 1 ? '1 segment selected' : `${count} segments selected`}</p>
      <label for="selection-speaker">Who says {count === 1 ? 'it' : 'them'}?</label>
      <select
        id="selection-speaker"
        value={choice}
        onChange={(event) => setChoice(event.currentTarget.value)}
      >
        <SpeakerOptions speakers={speakers} newLabel={newLabel} />
      </select>
      <button type="submit">Give {count === 1 ? 'it' : `all ${count}`}</button>
      <button type="button" class="quiet" onClick={onClear}>
        Clear selection
      </button>
    </form>
  );
}
