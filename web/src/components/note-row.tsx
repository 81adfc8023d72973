import { useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { ApiError } from '../api.ts';
import { useApp } from '../context.ts';
import { when } from '../format.ts';
import { deletionWords } from '../retention-words.ts';
import { href } from '../router.ts';
import type { NoteSummary } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { ConfirmDeletion } from './confirm-deletion.tsx';
import { StatusBadge } from './status.tsx';

/**
 * One note in a list, with what can be done to it there. Trash and Restore are optimistic: the row
 * leaves at once and the toast offers Undo; if the service refuses, the row comes back with the
 * reason beside its button. In the trash, deleting for good asks for typed confirmation (and for the
 * permission, in place, when the session was not given it).
 */
export function NoteRow({
  note,
  leaving,
  onLeave,
  onStay,
  onChanged,
}: {
  note: NoteSummary;
  /** Hidden while its move is under way (kept mounted, so a failure can still be shown here). */
  leaving: boolean;
  onLeave(): void;
  onStay(): void;
  /** The list should be read again (the move happened, or was undone). */
  onChanged(): void;
}) {
  const { api, announce } = useApp();
  const [confirming, setConfirming] = useState(false);
  const moveTo = (state: 'active' | 'trashed') =>
    api.request(`/v1/notes/${note.note_id}`, { method: 'PATCH', body: { state } });

  const row = useRef<HTMLLIElement>(null);
  const moveButton = useRef<HTMLButtonElement>(null);
  const move = useAction(async () => {
    const next = note.state === 'active' ? 'trashed' : 'active';
    focusNeighbour(row.current);
    onLeave();
    announce(next === 'trashed' ? `Moving “${note.title}” to the trash…` : `Restoring “${note.title}”…`);
    try {
      await moveTo(next);
    } catch (failure) {
      onStay();
      // Back where it was, with the reason beside it.
      requestAnimationFrame(() => moveButton.current?.focus());
      announce('');
      if (failure instanceof ApiError && failure.status === 404) throw new Error('That note is gone');
      throw failure;
    }
    announce(next === 'trashed' ? `“${note.title}” moved to the trash` : `“${note.title}” restored`, {
      undo: async () => {
        await moveTo(note.state);
        onChanged();
        // The row comes back with the list read again (maybe drawn anew): the focus goes back to its button.
        focusWhenShown(note.note_id);
      },
    });
    onChanged();
  });

  const deletion = useAction(async () => {
    await api.request(`/v1/notes/${note.note_id}`, { method: 'DELETE' });
    setConfirming(false);
    onLeave();
    announce(`“${note.title}” deleted for good`);
    onChanged();
  });

  const label = <span class="visually-hidden"> “{note.title}”</span>;
  return (
    <li ref={row} data-note-id={note.note_id} hidden={leaving} aria-busy={move.pending || deletion.pending}>
      <a href={href(`notes/${note.note_id}`)} class="title">
        {note.title}
      </a>
      <span class="meta">
        {when(note.created_at)} <StatusBadge status={note.transcription_status} />
        {note.state === 'trashed' && note.deletes_at ? (
          <span class="deletes-at">{deletionWords(note.deletes_at)}</span>
        ) : null}
      </span>
      <span class="row-actions">
        <button
          ref={moveButton}
          type="button"
          class="quiet move"
          onClick={() => void move.run()}
          aria-disabled={move.pending ? 'true' : undefined}
        >
          {note.state === 'active' ? 'Trash' : 'Restore'}
          {label}
        </button>
        {note.state === 'trashed' && (
          <button type="button" class="quiet danger" onClick={() => setConfirming(true)}>
            Delete for good…{label}
          </button>
        )}
      </span>
      <ActionFeedback action={move} />
      {confirming && (
        <ConfirmDeletion
          what={`“${note.title}”, its recording, transcript and everything made from it`}
          action="Delete permanently"
          onConfirm={async () => void (await deletion.run())}
          onCancel={() => setConfirming(false)}
        />
      )}
      <ActionFeedback action={deletion} />
    </li>
  );
}

/**
 * A row about to leave the list takes the focus with it (to the page's body) unless it is moved
 * first: to the next note's title, else the one before, else the page's heading.
 */
function focusNeighbour(row: HTMLLIElement | null): void {
  if (!row?.contains(document.activeElement)) return;
  const shown = (element: Element | null): element is HTMLLIElement =>
    element instanceof HTMLLIElement && !element.hidden;
  let next = row.nextElementSibling;
  while (next && !shown(next)) next = next.nextElementSibling;
  let before = row.previousElementSibling;
  while (before && !shown(before)) before = before.previousElementSibling;
  const target =
    (next ?? before)?.querySelector<HTMLElement>('a.title') ?? document.querySelector<HTMLElement>('main h1');
  if (target && !target.hasAttribute('tabindex') && target.tagName === 'H1') target.tabIndex = -1;
  target?.focus();
}

/** Frames to wait for the list to be read again and the row shown. */
const WAIT_FRAMES = 300;

function focusWhenShown(noteId: string, tries = 0): void {
  const button = document.querySelector<HTMLButtonElement>(
    `li[data-note-id="${CSS.escape(noteId)}"] button.move`,
  );
  if (button && button.getClientRects().length > 0) button.focus();
  else if (tries < WAIT_FRAMES) requestAnimationFrame(() => focusWhenShown(noteId, tries + 1));
}
