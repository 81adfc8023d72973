import { useState } from 'preact/hooks';

const WORD = 'delete';

/** A deletion cannot be undone: the user types the word before the button works. */
export function ConfirmDeletion({ what, onConfirm, onCancel }: { what: string; onConfirm(): void; onCancel(): void }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="confirm"
      onSubmit={(event) => {
        event.preventDefault();
        if (typed.trim().toLowerCase() !== WORD) return;
        setBusy(true);
        onConfirm();
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <p>
        This permanently deletes {what}. It cannot be undone.
      </p>
      <label for="confirm-deletion">
        Type <strong>{WORD}</strong> to confirm
      </label>
      <input
        id="confirm-deletion"
        autoComplete="off"
        value={typed}
        onInput={(event) => setTyped(event.currentTarget.value)}
        autoFocus
      />
      <button type="submit" class="danger" disabled={busy || typed.trim().toLowerCase() !== WORD}>
        Delete permanently
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
