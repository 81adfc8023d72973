import { madeBy } from '../engine-words.ts';
import { clock } from '../format.ts';
import type { Player } from '../player/playback.ts';
import { textSaysQuote } from '../quote-in-text.ts';
import type { Freshness } from '../types.ts';
import { Citations } from './citations.tsx';

interface Evidence {
  start_ms: number;
  quote: string;
}

export interface Artifact extends Freshness {
  kind: 'epiphany' | 'deep_research' | 'podcast';
  title: string;
  engine: string;
  content: Record<string, unknown>;
}

interface Epiphany {
  ideas: Array<{ title: string; connection: string; implication: string; evidence: Evidence[] }>;
}
interface DeepResearch {
  summary: string;
  research_questions: Array<{ question: string; rationale: string; evidence: Evidence[] }>;
  claims: Array<{ claim: string; evidence: Evidence[] }>;
  gaps: Array<{ gap: string; evidence: Evidence[] }>;
  next_steps: Array<{ step: string; evidence: Evidence[] }>;
}
interface Podcast {
  hosts: Array<{ id: string; name: string }>;
  script: Array<{ host: string; text: string; citations: number[] }>;
  audio: { url: string; duration_ms: number };
}

function EvidenceList({ evidence, player }: { evidence: Evidence[]; player: Player }) {
  return (
    <ul class="evidence">
      {evidence.map((item) => (
        <li key={`${item.start_ms}-${item.quote}`}>
          <q>{item.quote}</q> <Citations at={[item.start_ms]} player={player} />
        </li>
      ))}
    </ul>
  );
}

export function ArtifactView({ artifact, player }: { artifact: Artifact; player: Player }) {
  return (
    <div class="artifact">
      <h3>{artifact.title}</h3>
      {artifact.kind === 'epiphany' && (
        <EpiphanyView content={artifact.content as unknown as Epiphany} player={player} />
      )}
      {artifact.kind === 'deep_research' && (
        <DeepResearchView content={artifact.content as unknown as DeepResearch} player={player} />
      )}
      {artifact.kind === 'podcast' && (
        <PodcastView content={artifact.content as unknown as Podcast} player={player} />
      )}
      <p class="meta" title={artifact.engine}>
        {madeBy(artifact.engine)}
      </p>
    </div>
  );
}

function EpiphanyView({ content, player }: { content: Epiphany; player: Player }) {
  return (
    <ol>
      {content.ideas.map((idea) => (
        <li key={idea.title}>
          <strong>{idea.title}</strong>
          <p>{idea.connection}</p>
          <p>{idea.implication}</p>
          <EvidenceList evidence={idea.evidence} player={player} />
        </li>
      ))}
    </ol>
  );
}

function DeepResearchView({ content, player }: { content: DeepResearch; player: Player }) {
  const groups: Array<[string, Array<{ text: string; evidence: Evidence[] }>]> = [
    [
      'Research questions',
      content.research_questions.map((q) => ({ text: `${q.question} ${q.rationale}`, evidence: q.evidence })),
    ],
    ['Claims', content.claims.map((c) => ({ text: c.claim, evidence: c.evidence }))],
    ['Gaps', content.gaps.map((g) => ({ text: g.gap, evidence: g.evidence }))],
    ['Next steps', content.next_steps.map((s) => ({ text: s.step, evidence: s.evidence }))],
  ];
  return (
    <>
      <p>{content.summary}</p>
      {groups
        .filter(([, items]) => items.length > 0)
        .map(([title, items]) => (
          <div key={title}>
            <h4>{title}</h4>
            <ul>
              {items.map((item) => (
                <li key={item.text}>
                  <ItemWithEvidence text={item.text} evidence={item.evidence} player={player} />
                </li>
              ))}
            </ul>
          </div>
        ))}
    </>
  );
}

/**
 * An item and its evidence, each quote once: evidence the text already says is only its citation,
 * after the text; the rest is quoted below it.
 */
function ItemWithEvidence({
  text,
  evidence,
  player,
}: {
  text: string;
  evidence: Evidence[];
  player: Player;
}) {
  const said = evidence.filter((item) => textSaysQuote(text, item.quote));
  const quoted = evidence.filter((item) => !said.includes(item));
  return (
    <>
      {text} <Citations at={[...new Set(said.map((item) => item.start_ms))]} player={player} />
      {quoted.length > 0 && <EvidenceList evidence={quoted} player={player} />}
    </>
  );
}

function PodcastView({ content, player }: { content: Podcast; player: Player }) {
  const names = new Map(content.hosts.map((host) => [host.id, host.name]));
  return (
    <>
      <p class="meta">Lasts {clock(content.audio.duration_ms)}</p>
      {/* biome-ignore lint/a11y/useMediaCaption: the script below is the podcast's transcript */}
      <audio controls preload="metadata" src={content.audio.url} aria-label="Podcast audio" class="wide" />
      <details>
        <summary>Script</summary>
        <ol class="plain">
          {content.script.map((line, index) => (
            <li key={`${index}-${line.host}`}>
              <strong>{names.get(line.host) ?? line.host}:</strong> {line.text}{' '}
              <Citations at={line.citations} player={player} />
            </li>
          ))}
        </ol>
      </details>
    </>
  );
}
