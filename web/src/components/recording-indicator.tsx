import { useState } from 'preact/hooks';
import { useInterval } from '../hooks.ts';
import { useRecorder } from '../recorder/session.tsx';
import { elapsedClock, elapsedMs, isLive } from '../recorder/state.ts';
import { href } from '../router.ts';

/**
 * On pages other than the notes list, a recording still going on shows in the header, with its time,
 * linking back to its controls.
 */
export function RecordingIndicator({ hidden }: { hidden: boolean }) {
  const { state, destination } = useRecorder();
  const [, setTick] = useState(0);
  useInterval(state.kind === 'recording' && !hidden, 1000, () => setTick((tick) => tick + 1));
  if (hidden || !isLive(state)) return null;
  const collection = destination?.collection?.collection_id;
  return (
    <a class="recording-indicator" href={href('', { collection })}>
      <span class={`record-dot${state.kind === 'paused' ? ' paused' : ''}`} aria-hidden="true" />
      {state.kind === 'paused' ? 'Paused' : 'Recording'} {elapsedClock(elapsedMs(state, Date.now()))}
    </a>
  );
}
