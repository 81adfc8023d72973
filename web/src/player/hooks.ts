import { useEffect, useState } from 'preact/hooks';
import type { Playback } from './playback.ts';

/**
 * A value read from the playback, re-rendering its component only when that value changes (Preact
 * skips a render when a state is set to what it already is).
 */
export function usePlayback<T>(playback: Playback, select: (playback: Playback) => T): T {
  const [value, setValue] = useState(() => select(playback));
  useEffect(() => {
    const read = () => setValue(() => select(playback));
    read();
    return playback.subscribe(read);
    // `select` is a pure reading of the playback: a new function each render changes nothing.
  }, [playback]);
  return value;
}

/** Whether segment `index` is the one playing: its row alone re-renders when that changes. */
export function useSegmentPlaying(playback: Playback, index: number): boolean {
  const [playing, setPlaying] = useState(() => playback.playingIndex === index);
  useEffect(() => {
    const read = () => setPlaying(playback.playingIndex === index);
    read();
    return playback.subscribeSegment(index, read);
  }, [playback, index]);
  return playing;
}
