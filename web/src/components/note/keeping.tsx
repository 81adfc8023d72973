import { useAction } from '../../action.ts';
import { useApp } from '../../context.ts';
import { deletionWords, historyWords, periodWords, trashMomentWords } from '../../retention-words.ts';
import { href } from '../../router.ts';
import type { Note } from '../../types.ts';
import { ActionFeedback } from '../action-feedback.tsx';

/**
 * What the collections' retention periods do to this note, under its collections: when it moves to
 * the trash and whose period that is, or that the person keeps it, with the "Keep this note" toggle
 * (a pressed button, its state read out; the period's line changes when it is pressed); in the
 * trash, when a note the retention moved there is deleted for good. The note's history (trashed,
 * restored, kept) is folded away beneath. Nothing is shown for a note no period touches and no
 * history.
 */
export function NoteKeeping({ note, onChanged }: { note: Note; onChanged(): void }) {
  const { api, announce } = useApp();
  const kept = note.protected ?? false;
  const expiry = note.expiry ?? null;
  const history = note.history ?? [];
  const active = note.state === 'active';
  const deletesAt = note.state === 'trashed' ? (note.deletes_at ?? null) : null;

  const keep = useAction(async () => {
    const next = !kept;
    const { data } = await api.request<Note>(`/v1/notes/${note.note_id}`, {
      method: 'PATCH',
      body: { protected: next },
    });
    const comes = data.expiry;
    announce(
      next
        ? 'Kept: no collection’s retention moves this note to the trash'
        : comes
          ? `No longer kept: it moves to the trash ${trashMomentWords(comes.trash_at)}`
          : 'No longer kept',
    );
    onChanged();
  });

  const showToggle = active && (kept || expiry !== null);
  if (!showToggle && deletesAt === null && history.length === 0) return null;
  // The latest move to the trash is the one whose deletion is still to come.
  const lastTrashing = note.state === 'trashed' ? history.findLastIndex((e) => e.event === 'trashed') : -1;
  return (
    <div class="keeping">
      {showToggle && (
        <p class="keeping-line">
          <span id="keeping-state">
            {kept ? (
              'Kept: no collection’s retention moves this note to the trash.'
            ) : expiry ? (
              <>
                Moves to the trash {trashMomentWords(expiry.trash_at)} (
                <a href={href('', { collection: expiry.collection_id })}>{expiry.name}</a> keeps notes{' '}
                {periodWords(expiry.retention_days)}).
              </>
            ) : null}
          </span>{' '}
          <span class="action">
            <button
              type="button"
              class="keep-toggle"
              aria-pressed={kept}
              aria-describedby="keeping-state"
              aria-disabled={keep.pending ? 'true' : undefined}
              aria-busy={keep.pending}
              onClick={() => {
                if (!keep.pending) void keep.run();
              }}
            >
              <span class="keep-box" aria-hidden="true">
                {kept ? '✓' : ''}
              </span>
              Keep this note
            </button>
            <ActionFeedback action={keep} />
          </span>
        </p>
      )}
      {deletesAt !== null && <p class="keeping-line danger">{deletionWords(deletesAt)}.</p>}
      {history.length > 0 && (
        <details class="history">
          <summary>History ({history.length})</summary>
          <ol class="plain">
            {history.map((event, index) => (
              <li key={`${event.at}-${event.event}-${index}`}>
                {historyWords(event, index === lastTrashing && note.deletes_at === event.deletes_at)}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
