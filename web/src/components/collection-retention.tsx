import { Fragment } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import { olderNotesWords, periodWords, RETENTION_PRESETS, retentionEffect } from '../retention-words.ts';
import { type Collection, RETENTION_DAYS_MAX, RETENTION_DAYS_MIN } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { SaveOrCancel } from './save-or-cancel.tsx';

/** A choice of the editor: forever, one of the presets (by its days), or another number typed. */
type Choice = 'forever' | 'other' | `${number}`;

interface Draft {
  choice: Choice;
  /** The number typed for `other`, as typed. */
  other: string;
}

function draftOf(days: number | null): Draft {
  if (days === null) return { choice: 'forever', other: '' };
  if (RETENTION_PRESETS.includes(days)) return { choice: `${days}`, other: '' };
  return { choice: 'other', other: String(days) };
}

/** The days a draft stands for: null for forever, NaN when the typed number is not a valid period. */
function daysOf(draft: Draft): number | null {
  if (draft.choice === 'forever') return null;
  if (draft.choice !== 'other') return Number(draft.choice);
  const typed = draft.other.trim();
  if (!/^\d+$/.test(typed)) return Number.NaN;
  const days = Number(typed);
  return days >= RETENTION_DAYS_MIN && days <= RETENTION_DAYS_MAX ? days : Number.NaN;
}

const LIMITS = `a whole number of days from ${RETENTION_DAYS_MIN} to ${RETENTION_DAYS_MAX.toLocaleString('en')}`;

/**
 * How long a collection keeps its notes, on the collection's page: said in plain words (what moves
 * to the trash, when, and what the trash then does), and changed in place: a group of choices
 * (Forever, 7 days … 1 year, or another number of days), what the choice will do said beside it
 * before it is saved, Save and Cancel, Escape cancels.
 */
export function CollectionRetention({ collection, onSaved }: { collection: Collection; onSaved(): void }) {
  const { api, announce, config } = useApp();
  const current = collection.retention_days ?? null;
  const [draft, setDraft] = useState<Draft | null>(null);
  const [invalid, setInvalid] = useState(false);
  const changeButton = useRef<HTMLButtonElement>(null);
  const group = useRef<HTMLFieldSetElement>(null);
  const editing = draft !== null;
  // The chosen option takes the focus each time the editor opens: arrows then move between the choices.
  useLayoutEffect(() => {
    if (editing) group.current?.querySelector<HTMLInputElement>('input[type="radio"]:checked')?.focus();
  }, [editing]);

  const close = () => {
    setDraft(null);
    setInvalid(false);
    save.clearError();
    requestAnimationFrame(() => changeButton.current?.focus());
  };
  const save = useAction(async () => {
    if (draft === null) return;
    const days = daysOf(draft);
    if (Number.isNaN(days)) {
      setInvalid(true);
      return;
    }
    await api.request(`/v1/collections/${collection.collection_id}`, {
      method: 'PATCH',
      body: { retention_days: days },
    });
    announce(
      days === null
        ? `“${collection.name}” keeps its notes until you trash them`
        : `“${collection.name}” keeps notes ${periodWords(days)}`,
    );
    onSaved();
    close();
  });

  const chosenDays = draft ? daysOf(draft) : current;
  const effectId = 'retention-effect';
  const otherId = 'retention-other-days';
  const choose = (choice: Choice) => {
    setDraft((previous) => ({ other: previous?.other ?? '', choice }));
    setInvalid(false);
  };
  return (
    <section aria-labelledby="retention-title" class="collection-retention">
      <h2 id="retention-title">How long notes are kept</h2>
      {!editing && (
        <>
          <p class="retention-period">
            {current === null ? 'Forever' : `${periodWords(current)}, then to the trash`}
          </p>
          <p class="meta">{retentionEffect(collection.name, current, config.trash_days).join(' ')}</p>
          <button ref={changeButton} type="button" onClick={() => setDraft(draftOf(current))}>
            {current === null ? 'Set how long notes are kept' : 'Change how long notes are kept'}
          </button>
        </>
      )}
      {editing && (
        <form
          // The limits are said in the page's own words (below), not in the browser's bubble.
          noValidate
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
          <fieldset ref={group} class="retention-choices" aria-describedby={effectId}>
            <legend>Keep the notes in “{collection.name}”</legend>
            <label>
              <input
                type="radio"
                name="retention"
                value="forever"
                checked={draft.choice === 'forever'}
                onChange={() => choose('forever')}
              />{' '}
              Forever
            </label>
            {RETENTION_PRESETS.map((days) => (
              <label key={days}>
                <input
                  type="radio"
                  name="retention"
                  value={String(days)}
                  checked={draft.choice === `${days}`}
                  onChange={() => choose(`${days}`)}
                />{' '}
                {periodWords(days)}
              </label>
            ))}
            <label>
              <input
                type="radio"
                name="retention"
                value="other"
                checked={draft.choice === 'other'}
                onChange={() => choose('other')}
              />{' '}
              Another number of days
            </label>
            {draft.choice === 'other' && (
              <span class="retention-other">
                <label for={otherId}>Number of days</label>
                <input
                  id={otherId}
                  type="number"
                  inputMode="numeric"
                  min={RETENTION_DAYS_MIN}
                  max={RETENTION_DAYS_MAX}
                  step={1}
                  value={draft.other}
                  aria-invalid={invalid ? 'true' : undefined}
                  aria-describedby={effectId}
                  onInput={(event) => {
                    const other = event.currentTarget.value;
                    setDraft((previous) => ({ choice: previous?.choice ?? 'other', other }));
                    setInvalid(false);
                  }}
                />
              </span>
            )}
          </fieldset>
          <p id={effectId} class="meta retention-effect">
            {chosenDays !== null && Number.isNaN(chosenDays)
              ? !invalid && `Type ${LIMITS}.`
              : retentionEffect(collection.name, chosenDays, config.trash_days, chosenDays !== current).map(
                  (sentence, index) => (
                    <Fragment key={sentence}>
                      {index > 0 && ' '}
                      {/* What a new period does at once stands out: older notes go within the hour. */}
                      {chosenDays !== null && sentence === olderNotesWords(chosenDays) ? (
                        <strong>{sentence}</strong>
                      ) : (
                        sentence
                      )}
                    </Fragment>
                  ),
                )}
          </p>
          {invalid && (
            <p role="alert" class="error">
              Not saved: type {LIMITS}, or choose another option, then save.
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
