import { useId, useState } from 'preact/hooks';
import { useFocusOnMount } from '../hooks.ts';

const WORD = 'delete';

/** A deletion cannot be undone: the user types the word before the button works. */
export function ConfirmDeletion({
  what,
  action = 'Delete permanently',
  busyLabel = 'Deleting…',
  onConfirm,
  onCancel,
}: {
  what: string;
  /** The button's label, e.g. "Revoke the key". */
  action?: string;
  /** The button's label while the deletion runs, e.g. "Revoking…". */
  busyLabel?: string;
  /** Resolves when done; on failure the form is usable again. */
  onConfirm(): Promise<void>;
  onCancel(): void;
}) {
  const [typed, setTyped] = useState('');
  const focus = useFocusOnMount<HTMLInputElement>();
  const [busy, setBusy] = useState(false);
  // Two confirmations may be open on one page (a key's and a voice's, on Account).
  const id = `confirm-deletion-${useId()}`;
  return (
    <form
      class="confirm"
      onSubmit={(event) => {
        event.preventDefault();
        if (typed.trim().toLowerCase() !== WORD) return;
        setBusy(true);
        onConfirm().finally(() => setBusy(false));
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <p>This permanently removes {what}. It cannot be undone.</p>
      <label for={id}>
        Type <strong>{WORD}</strong> to confirm
      </label>
      <input
        id={id}
        autoComplete="off"
        value={typed}
        onInput={(event) => setTyped(event.currentTarget.value)}
        ref={focus}
      />
      <button
        type="submit"
        class="danger"
        disabled={busy || typed.trim().toLowerCase() !== WORD}
        aria-busy={busy}
      >
        {busy ? busyLabel : action}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
