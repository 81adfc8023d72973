import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import type { Saved } from '../corrections.ts';
import { href } from '../router.ts';
import type { Note, VoiceMatch } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';

/** A speaker just named, whose voice could be kept. */
export interface RememberOffer {
  label: string;
  name: string;
}

/**
 * Voices the account keeps (voice profiles), on a note: each speaker the service named after a kept
 * voice, to confirm (the profile learns this voice too) or reject (the name goes); and, right after a
 * person names a speaker, the offer to keep that voice so later recordings name them.
 */
export function KnownVoices({
  noteId,
  matches,
  labels,
  offer,
  onOfferDone,
  onSaved,
}: {
  noteId: string;
  matches: Record<string, VoiceMatch>;
  /** The labels the transcript has now: a match of a label corrected away is not shown. */
  labels: readonly string[];
  offer: RememberOffer | null;
  onOfferDone(): void;
  onSaved(saved: Saved): void;
}) {
  const { api, announce } = useApp();
  const review = useAction(async (label: string, match: VoiceMatch, decision: 'confirm' | 'reject') => {
    const { data, etag } = await api.request<Note>(
      `/v1/notes/${noteId}/voice-matches/${encodeURIComponent(label)}`,
      { method: 'POST', body: { decision } },
    );
    announce(
      decision === 'confirm' ? `${match.name} confirmed` : `${label} is no longer named ${match.name}`,
    );
    onSaved({ note: { note: data, etag } });
  });
  const remember = useAction(async (wanted: RememberOffer) => {
    await api.request(`/v1/account/voice-profiles`, {
      method: 'POST',
      body: { note_id: noteId, speaker: wanted.label, name: wanted.name },
    });
    announce(`${wanted.name}'s voice is kept: later recordings will name ${wanted.name}`);
    onOfferDone();
    const { data, etag } = await api.request<Note>(`/v1/notes/${noteId}`);
    onSaved({ note: { note: data, etag } });
  });
  const suggested = Object.entries(matches).filter(
    ([label, match]) => match.status === 'suggested' && labels.includes(label),
  );
  if (suggested.length === 0 && !offer) return null;
  return (
    <>
      {suggested.map(([label, match]) => (
        <section class="suggestion" aria-label={`Is this ${match.name}?`} key={label}>
          <p>
            {label} sounds like <strong>{match.name}</strong>, whose voice you kept (similarity{' '}
            {match.similarity.toFixed(2)}).
          </p>
          <div class="actions">
            <button
              type="button"
              disabled={review.pending}
              onClick={() => void review.run(label, match, 'confirm')}
            >
              Yes, it is {match.name}
            </button>
            <button
              type="button"
              class="quiet"
              disabled={review.pending}
              onClick={() => void review.run(label, match, 'reject')}
            >
              Not {match.name}
            </button>
          </div>
        </section>
      ))}
      <ActionFeedback action={review} />
      {offer && (
        <section class="suggestion" aria-label="Keep this voice">
          <p>
            Keep {offer.name}'s voice? Later recordings will name {offer.name} where this voice is heard. Only
            numbers describing the voice are kept, never audio (<a href={href('account')}>voice profiles</a>).
          </p>
          <div class="actions">
            <button type="button" disabled={remember.pending} onClick={() => void remember.run(offer)}>
              {remember.pending ? 'Keeping…' : `Keep ${offer.name}'s voice`}
            </button>
            <button type="button" class="quiet" onClick={onOfferDone}>
              Not now
            </button>
          </div>
          <ActionFeedback action={remember} />
        </section>
      )}
    </>
  );
}
