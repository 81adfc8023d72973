import { useEffect, useRef } from 'preact/hooks';
import { useAction } from '../action.ts';
import { ApiError } from '../api.ts';
import { useApp } from '../context.ts';
import { stageLabel } from '../format.ts';
import { useInterval, useLoad } from '../hooks.ts';
import type { Playback } from '../player/playback.ts';
import type { Freshness, Insights, Job } from '../types.ts';
import { ActionButton } from './action-button.tsx';
import { type Artifact, ArtifactView } from './artifacts.tsx';
import { InsightsView } from './insights.tsx';
import { InstructionsUsedNote } from './instructions-used.tsx';

export type GeneratedKind = 'insights' | 'epiphany' | 'deep_research' | 'podcast';

export const TITLES: Record<GeneratedKind, string> = {
  insights: 'Insights',
  epiphany: 'Epiphany',
  deep_research: 'Deep research',
  podcast: 'Podcast',
};
const POLL_MS = 3000;

type Outcome =
  | { kind: 'none' }
  | { kind: 'working'; job: Job }
  | { kind: 'failed'; detail: string }
  | { kind: 'ready'; result: Insights | Artifact };

function pathOf(noteId: string, kind: GeneratedKind): string {
  return kind === 'insights' ? `/v1/notes/${noteId}/insights` : `/v1/notes/${noteId}/artifacts/${kind}`;
}

/**
 * One generated result of a note (Insights or an artifact): generate it, follow its job's stage, show
 * it with its citations and the collections' instructions it was made with, regenerate it. `outdated`
 * says the transcript was corrected, or the instructions changed, after it was made.
 */
export function GeneratedPanel({
  noteId,
  kind,
  player,
  transcriptVersion,
  filing,
}: {
  noteId: string;
  kind: GeneratedKind;
  player: Playback;
  /** Changes with every correction (the transcript's ETag): the result is read again, to say whether it is outdated. */
  transcriptVersion: string;
  /** The note's collections (their IDs): filed or taken out, the result is read again, as for a correction. */
  filing: string;
}) {
  const { api, announce } = useApp();
  const state = useLoad<Outcome>(`${noteId}:${kind}`, async () => {
    try {
      const { status, data } = await api.request<Job | Insights | Artifact>(pathOf(noteId, kind));
      return status === 202
        ? { kind: 'working', job: data as Job }
        : { kind: 'ready', result: data as Insights | Artifact };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return { kind: 'none' };
      if (error instanceof ApiError && error.status === 409) return { kind: 'failed', detail: error.message };
      throw error;
    }
  });
  const outcome = state.data;
  useInterval(outcome?.kind === 'working', POLL_MS, state.reload);
  // After a correction, at once: the service says whether the result still matches the transcript
  // (read again in place: what is shown stays until the answer comes, so nothing jumps).
  const version = `${transcriptVersion}|${filing}`;
  const seenVersion = useRef(version);
  useEffect(() => {
    if (seenVersion.current === version) return;
    seenVersion.current = version;
    state.reload();
  }, [version, state.reload]);

  // The failure (a missing permission, a refusal) shows beside the button, where it was pressed.
  const generate = useAction(async () => {
    await api.request(pathOf(noteId, kind), {
      method: 'POST',
      // generateInsights always makes them afresh and takes no options; artifacts are kept unless asked.
      body: kind === 'insights' ? {} : { regenerate: outcome?.kind !== 'none' },
    });
    announce(`${TITLES[kind]} requested`);
    state.reload();
  });

  const headingId = `generated-${kind}`;
  return (
    <section aria-labelledby={headingId} class="generated">
      <div class="section-head">
        <h2 id={headingId}>{TITLES[kind]}</h2>
        {/* The same button while the job runs: the focus stays on it, and it says what is going on. */}
        {outcome && (
          <ActionButton
            action={generate}
            pendingLabel="Asking…"
            working={outcome.kind === 'working' ? 'Generating…' : null}
          >
            {buttonLabel(kind, outcome)}
          </ActionButton>
        )}
      </div>
      {state.error && (
        <p role="alert" class="error">
          {state.error}
        </p>
      )}
      {!outcome && !state.error && (
        <div class="skeleton" aria-busy="true">
          <span class="visually-hidden">Loading {TITLES[kind].toLowerCase()}…</span>
        </div>
      )}
      {outcome?.kind === 'none' && <p class="empty">Not generated yet.</p>}
      {outcome?.kind === 'working' && (
        <p role="status">
          {stageLabel(outcome.job.stage, outcome.job.progress)}
          <progress aria-label={`${TITLES[kind]} progress`} />
        </p>
      )}
      {outcome?.kind === 'failed' && (
        <p role="alert" class="error">
          {outcome.detail}
        </p>
      )}
      {outcome?.kind === 'ready' && <OutdatedNotice reasons={outdatedBy(outcome.result)} />}
      {/* Before the content: whose instructions shaped it, or that they could not, is read first. */}
      {outcome?.kind === 'ready' && <InstructionsUsedNote used={outcome.result.collection_instructions} />}
      {outcome?.kind === 'ready' &&
        (kind === 'insights' ? (
          <InsightsView insights={outcome.result as Insights} player={player} />
        ) : (
          <ArtifactView artifact={outcome.result as Artifact} player={player} />
        ))}
    </section>
  );
}

type OutdatedReason = NonNullable<Freshness['outdated_reasons']>[number];

/** Why the result is older than what it is made from (the service says so); a service that gives no reason means the transcript. */
function outdatedBy(result: Freshness): OutdatedReason[] {
  if (result.outdated !== true) return [];
  return result.outdated_reasons?.length ? result.outdated_reasons : ['transcript'];
}

function OutdatedNotice({ reasons }: { reasons: OutdatedReason[] }) {
  if (reasons.length === 0) return null;
  const transcript = reasons.includes('transcript');
  const instructions = reasons.includes('instructions');
  return (
    <p class="notice">
      {transcript &&
        'Made from the transcript as it was before your latest correction: it may quote words that have changed since. '}
      {instructions &&
        `Made ${transcript ? 'also ' : ''}before the instructions of this note’s collections changed (edited, or the note filed in or taken out of a collection with instructions). `}
      <strong>{transcript ? 'Regenerate with the corrections' : 'Regenerate with the instructions'}</strong>{' '}
      brings it up to date.
    </p>
  );
}

function buttonLabel(kind: GeneratedKind, outcome: Outcome): string {
  if (outcome.kind === 'none') return `Generate ${TITLES[kind].toLowerCase()}`;
  const reasons = outcome.kind === 'ready' ? outdatedBy(outcome.result) : [];
  if (reasons.includes('transcript')) return 'Regenerate with the corrections';
  return reasons.includes('instructions') ? 'Regenerate with the instructions' : 'Regenerate';
}
