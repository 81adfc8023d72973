import { usePlayback } from '../player/hooks.ts';
import type { Playback } from '../player/playback.ts';
import type { TimedWord } from '../types.ts';

export interface ShownWord {
  text: string;
  unsure: boolean;
}

/** An unsure word: underlined, and said so to screen readers. */
function Unsure({ text }: { text: string }) {
  return (
    <span class="unsure">
      {text}
      <span class="visually-hidden"> (unsure)</span>
    </span>
  );
}

/**
 * A segment's words as few nodes as possible: runs of words as one text, only the unsure ones
 * marked. (Two hours of speech is some 20,000 words: one element each would weigh on every page.)
 */
export function SegmentText({ words }: { words: readonly ShownWord[] }) {
  const parts: Array<string | { unsure: string }> = [];
  let run = '';
  words.forEach((word, index) => {
    const space = index > 0 ? ' ' : '';
    if (!word.unsure) {
      run += space + word.text;
      return;
    }
    parts.push(run + space);
    run = '';
    parts.push({ unsure: word.text });
  });
  parts.push(run);
  return (
    <>
      {parts.map((part, index) =>
        typeof part === 'string' ? part : <Unsure key={index} text={part.unsure} />,
      )}
    </>
  );
}

/**
 * The playing segment's words, the one being said highlighted (where the recogniser gave word
 * timings). Only this segment listens to every move of the position.
 */
export function PlayingText({
  words,
  timed,
  playback,
}: {
  words: readonly ShownWord[];
  timed: readonly TimedWord[] | undefined;
  playback: Playback;
}) {
  // Before the first play the position is 0 by default, not a word being said.
  const said = usePlayback(playback, (p) =>
    timed && (p.positionMs > 0 || !p.paused)
      ? timed.findIndex((word) => p.positionMs >= word.start_ms && p.positionMs < word.end_ms)
      : -1,
  );
  if (said < 0) return <SegmentText words={words} />;
  return (
    <>
      <SegmentText words={words.slice(0, said)} />
      {said > 0 && ' '}
      <span class="said">
        {words[said]?.unsure ? <Unsure text={words[said]?.text ?? ''} /> : words[said]?.text}
      </span>
      {said < words.length - 1 && ' '}
      <SegmentText words={words.slice(said + 1)} />
    </>
  );
}
