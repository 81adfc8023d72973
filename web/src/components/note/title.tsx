import { useState } from 'preact/hooks';
import { useAction } from '../../action.ts';
import { ApiError } from '../../api.ts';
import { useApp } from '../../context.ts';
import { useFocusOnMount } from '../../hooks.ts';
import type { Note } from '../../types.ts';

/** The note's title, renamed in place: "Saving…" while it is sent, the failure beside the field. */
export function TitleEditor({
  note,
  etag,
  onChanged,
}: {
  note: Note;
  etag: string | null;
  onChanged(): void;
}) {
  const { api, announce } = useApp();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(note.title);
  const rename = useAction(async () => {
    try {
      await api.request(`/v1/notes/${note.note_id}`, {
        method: 'PATCH',
        ifMatch: etag,
        body: { title: title.trim() },
      });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 412)) throw error;
      onChanged();
      throw new Error('The note changed meanwhile: it was reloaded, rename it again');
    }
    announce('Renamed');
    setEditing(false);
    onChanged();
  });
  if (!editing) {
    return (
      <div class="section-head">
        <h1 id="note-title">{note.title}</h1>
        <button
          type="button"
          class="quiet"
          onClick={() => {
            setTitle(note.title);
            rename.clearError();
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  return (
    <TitleForm
      title={title}
      pending={rename.pending}
      error={rename.error}
      onChange={setTitle}
      onSave={() => void rename.run()}
      onCancel={() => setEditing(false)}
    />
  );
}

function TitleForm({
  title,
  pending,
  error,
  onChange,
  onSave,
  onCancel,
}: {
  title: string;
  pending: boolean;
  error: string | null;
  onChange(title: string): void;
  onSave(): void;
  onCancel(): void;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <label for="note-title-input" id="note-title">
        Title
      </label>
      <input
        id="note-title-input"
        value={title}
        maxLength={200}
        required
        readOnly={pending}
        onInput={(event) => onChange(event.currentTarget.value)}
        ref={focus}
      />
      <button type="submit" class="primary" disabled={pending}>
        {pending ? 'Saving…' : 'Save'}
      </button>
      <button type="button" onClick={onCancel} disabled={pending}>
        Cancel
      </button>
      {error && (
        <span role="alert" class="error inline">
          {error}
        </span>
      )}
    </form>
  );
}
