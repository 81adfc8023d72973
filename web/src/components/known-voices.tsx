import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import type { Saved } from '../corrections.ts';
import { href } from '../router.ts';
import type { Note, VoiceMatch } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';

/** A speaker just named, whose voice could be kept (or added to the kept voice of that name). */
export interface RememberOffer {
  label: string;
  name: string;
  /** The account's profile of that name, if it has one: taught this voice rather than a second one made. */
  profileId: string | null;
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
  /** `kept`: a profile was made or taught. */
  onOfferDone(kept: boolean): void;
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
      body: {
        note_id: noteId,
        speaker: wanted.label,
        ...(wanted.profileId ? { profile_id: wanted.profileId } : { name: wanted.name }),
      },
    });
    announce(`${wanted.name}'s voice is kept: later recordings will name ${wanted.name}`);
    onOfferDone(true);
    focusSpeaker(wanted.label);
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
            {offer.profileId
              ? `Add this voice to ${offer.name}'s kept voice? Later recordings will name ${offer.name} more surely.`
              : `Keep ${offer.name}'s voice? Later recordings will name ${offer.name} where this voice is heard.`}{' '}
            Only numbers describing the voice are kept, never audio (
            <a href={href('account')}>voice profiles</a>
            ).
          </p>
          <div class="actions">
            <button type="button" disabled={remember.pending} onClick={() => void remember.run(offer)}>
              {remember.pending
                ? 'Keeping…'
                : offer.profileId
                  ? `Add to ${offer.name}'s voice`
                  : `Keep ${offer.name}'s voice`}
            </button>
            <button
              type="button"
              class="quiet"
              onClick={() => {
                onOfferDone(false);
                focusSpeaker(offer.label);
              }}
            >
              Not now
            </button>
          </div>
          <ActionFeedback action={remember} />
        </section>
      )}
    </>
  );
}

/** Focus back on the speaker's name when the control that held it goes. */
function focusSpeaker(label: string): void {
  document
    .querySelector<HTMLButtonElement>(
      `.transcript .section-head button[data-speaker-label="${CSS.escape(label)}"]`,
    )
    ?.focus();
}
