import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import { type Collection, INSTRUCTIONS_LIMIT } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { SaveOrCancel } from './save-or-cancel.tsx';

/** Characters as the service counts them (code points: an emoji is one). */
const length = (text: string) => [...text].length;

/**
 * A collection's instructions for its notes' Insights and artifacts, on the collection's page: shown,
 * and edited in place (a labelled text box with the limit counted, Save and Cancel, Escape cancels).
 * Saving an empty box clears them.
 */
export function CollectionInstructions({ collection, onSaved }: { collection: Collection; onSaved(): void }) {
  const { api, announce } = useApp();
  const current = collection.instructions ?? '';
  const [draft, setDraft] = useState<string | null>(null);
  const [tooLong, setTooLong] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const editing = draft !== null;
  // The box takes the focus each time it opens (autofocus is honoured once per page load).
  useLayoutEffect(() => {
    if (editing) box.current?.focus();
  }, [editing]);
  const used = length(draft ?? '');

  const close = () => {
    setDraft(null);
    setTooLong(false);
    save.clearError();
    // Back where the person started, once the button is there again.
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const save = useAction(async () => {
    if (draft === null) return;
    if (length(draft) > INSTRUCTIONS_LIMIT) {
      setTooLong(true);
      return;
    }
    const text = draft.trim();
    await api.request(`/v1/collections/${collection.collection_id}`, {
      method: 'PATCH',
      body: { instructions: text === '' ? null : text },
    });
    announce(text === '' ? 'Instructions cleared' : 'Instructions saved');
    onSaved();
    close();
  });

  const countId = 'instructions-count';
  const helpId = 'instructions-help';
  return (
    <section aria-labelledby="instructions-title" class="collection-instructions">
      <h2 id="instructions-title">Instructions for Insights and artifacts</h2>
      {!editing && (
        <>
          {current ? (
            <p class="instructions-text">{current}</p>
          ) : (
            <p class="empty">No instructions: its notes’ summaries and artifacts are made the usual way.</p>
          )}
          <button ref={editButton} type="button" onClick={() => setDraft(current)}>
            {current ? 'Edit instructions' : 'Add instructions'}
          </button>
        </>
      )}
      {editing && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void save.run();
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              close();
            }
          }}
        >
          <label for="collection-instructions">Instructions for the notes in “{collection.name}”</label>
          <p id={helpId} class="meta">
            What their summaries and artifacts should bring out, for example “Action items only” or “A recipe:
            ingredients first, then the steps”. AI models follow them as preferences; the engine that picks
            sentences from the transcript cannot. Leave it empty for none.
          </p>
          <textarea
            id="collection-instructions"
            rows={5}
            value={draft}
            aria-describedby={`${helpId} ${countId}`}
            aria-invalid={used > INSTRUCTIONS_LIMIT ? 'true' : undefined}
            ref={box}
            onInput={(event) => {
              setDraft(event.currentTarget.value);
              setTooLong(false);
            }}
          />
          <p id={countId} class={used > INSTRUCTIONS_LIMIT ? 'meta error' : 'meta'}>
            {used.toLocaleString('en')} of {INSTRUCTIONS_LIMIT.toLocaleString('en')} characters
            {used > INSTRUCTIONS_LIMIT && ` (${(used - INSTRUCTIONS_LIMIT).toLocaleString('en')} too many)`}
          </p>
          {tooLong && (
            <p role="alert" class="error">
              Not saved: the instructions can be at most {INSTRUCTIONS_LIMIT.toLocaleString('en')} characters.
              Shorten them, then save.
            </p>
          )}
          <div class="inline">
            <SaveOrCancel onCancel={close} save={save.pending ? 'Saving…' : 'Save'} />
            <ActionFeedback action={save} />
          </div>
        </form>
      )}
    </section>
  );
}
