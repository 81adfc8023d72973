import { useRef, useState } from 'preact/hooks';
import type { Playback } from '../player/playback.ts';
import { type GeneratedKind, GeneratedPanel, TITLES } from './generated.tsx';

const KINDS: GeneratedKind[] = ['insights', 'epiphany', 'deep_research', 'podcast'];

/**
 * What matters first, beside the transcript on a wide screen and above it on a phone: the summary,
 * action items and chapters (Insights), and the three artifacts, one tab each. A panel is read the
 * first time its tab is chosen (opening a note asks for Insights alone, not three artifacts that
 * mostly do not exist yet, each a 404), then stays mounted (hidden when not chosen), so it keeps its
 * state and follows its job while another shows.
 */
export function NotePanels({
  noteId,
  player,
  transcriptVersion,
  filing,
}: {
  noteId: string;
  player: Playback;
  /** The transcript's version (its ETag): each panel reads its result again when it changes. */
  transcriptVersion: string;
  /** The note's collections, as IDs: their instructions bear on the results, read again when it changes. */
  filing: string;
}) {
  const [chosen, setChosen] = useState<GeneratedKind>('insights');
  const [opened, setOpened] = useState<ReadonlySet<GeneratedKind>>(() => new Set(['insights']));
  if (!opened.has(chosen)) setOpened(new Set([...opened, chosen]));
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const choose = (index: number) => {
    const kind = KINDS[(index + KINDS.length) % KINDS.length] as GeneratedKind;
    setChosen(kind);
    tabs.current[KINDS.indexOf(kind)]?.focus();
  };
  return (
    <aside class="note-panels" aria-label="Summary and generated results">
      <div class="tabs" role="tablist" aria-label="Results">
        {KINDS.map((kind, index) => (
          <button
            key={kind}
            type="button"
            role="tab"
            id={`tab-${kind}`}
            aria-selected={chosen === kind}
            aria-controls={`panel-${kind}`}
            tabIndex={chosen === kind ? 0 : -1}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            onClick={() => setChosen(kind)}
            onKeyDown={(event) => {
              const moves: Record<string, number> = {
                ArrowRight: index + 1,
                ArrowLeft: index - 1,
                Home: 0,
                End: KINDS.length - 1,
              };
              const to = moves[event.key];
              if (to === undefined) return;
              event.preventDefault();
              choose(to);
            }}
          >
            {kind === 'insights' ? 'Summary' : TITLES[kind]}
          </button>
        ))}
      </div>
      {KINDS.map((kind) => (
        <div
          key={kind}
          role="tabpanel"
          id={`panel-${kind}`}
          aria-labelledby={`tab-${kind}`}
          hidden={chosen !== kind}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a tab panel takes focus (ARIA tabs pattern)
          tabIndex={0}
        >
          {opened.has(kind) && (
            <GeneratedPanel
              noteId={noteId}
              kind={kind}
              player={player}
              transcriptVersion={transcriptVersion}
              filing={filing}
            />
          )}
        </div>
      ))}
    </aside>
  );
}
