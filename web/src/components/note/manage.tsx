import { useState } from 'preact/hooks';
import { useAction } from '../../action.ts';
import { useApp } from '../../context.ts';
import { href, navigate } from '../../router.ts';
import type { Note } from '../../types.ts';
import { ActionButton } from '../action-button.tsx';
import { ConfirmDeletion } from '../confirm-deletion.tsx';

/**
 * Trash and restore (each undoable from the toast), and the two deletions that cannot be undone
 * (typed confirmation). Each button says it is working and shows its own failure beside it.
 */
export function NoteActions({
  note,
  etag,
  onChanged,
}: {
  note: Note;
  etag: string | null;
  onChanged(): void;
}) {
  const { api, announce } = useApp();
  const [confirming, setConfirming] = useState<'note' | 'results' | null>(null);
  const patchState = async (state: 'active' | 'trashed', ifMatch: string | null) =>
    (await api.request(`/v1/notes/${note.note_id}`, { method: 'PATCH', ifMatch, body: { state } })).etag;
  const move = useAction(async () => {
    const to = note.state === 'active' ? 'trashed' : 'active';
    const back = to === 'trashed' ? 'active' : 'trashed';
    const changed = await patchState(to, etag);
    onChanged();
    announce(to === 'trashed' ? 'Moved to the trash' : 'Restored', {
      undo: async () => {
        await patchState(back, changed);
        onChanged();
      },
    });
  });
  const remove = useAction(async () => {
    if (confirming === 'note') {
      await api.request(`/v1/notes/${note.note_id}`, { method: 'DELETE' });
      announce(`“${note.title}” was deleted for good`);
      navigate(href(''));
    } else {
      await api.request(`/v1/notes/${note.note_id}/transcription`, { method: 'DELETE' });
      announce('The transcript and everything made from it were removed');
      setConfirming(null);
      onChanged();
    }
  });
  return (
    <section aria-labelledby="actions-title" class="danger-zone">
      <h2 id="actions-title">Manage</h2>
      <p class="actions">
        <ActionButton
          action={move}
          pendingLabel={note.state === 'active' ? 'Moving to the trash…' : 'Restoring…'}
        >
          {note.state === 'active' ? 'Move to trash' : 'Restore'}
        </ActionButton>
        {note.transcription_job?.status === 'completed' && (
          <button type="button" class="danger" onClick={() => setConfirming('results')}>
            Remove transcript and results…
          </button>
        )}
        <button type="button" class="danger" onClick={() => setConfirming('note')}>
          Delete for good…
        </button>
      </p>
      {confirming && (
        <ConfirmDeletion
          what={
            confirming === 'note'
              ? `the note “${note.title}”, its recording and everything made from it`
              : `the transcript of “${note.title}”, its Insights and artifacts (the recording stays)`
          }
          busyLabel={confirming === 'note' ? 'Deleting…' : 'Removing…'}
          onConfirm={async () => {
            await remove.run();
          }}
          onCancel={() => {
            remove.clearError();
            setConfirming(null);
          }}
        />
      )}
      {remove.error && (
        <p role="alert" class="error">
          {remove.error}
        </p>
      )}
    </section>
  );
}
