import { useEffect, useRef } from 'preact/hooks';
import type { Playback } from '../player/playback.ts';

const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End', 'ArrowUp', 'ArrowDown']);
/** Frames to wait for a row not drawn yet (a long transcript is drawn in slices). */
const WAIT_FRAMES = 120;

/** Whether the person is typing a correction: the transcript does not move under their caret. */
function editing(): boolean {
  const focused = document.activeElement;
  return focused instanceof HTMLElement && focused.closest('.segment .editor') !== null;
}

function reveal(row: HTMLElement): void {
  const top = document.querySelector('.player')?.getBoundingClientRect().bottom ?? 0;
  const box = row.getBoundingClientRect();
  if (box.top >= top && box.bottom <= window.innerHeight) return;
  row.scrollIntoView({ block: 'center' });
}

/**
 * The transcript follows playback: the playing segment is kept in view until the person scrolls the
 * page themselves (wheel, touch, scroll keys, the scroll bar); the player then offers the way back,
 * and any "play from here" follows again. `drawAll` is asked for when the row is not drawn yet.
 */
export function useFollowPlayback(playback: Playback, drawAll: () => void): void {
  const drawAllNow = useRef(drawAll);
  drawAllNow.current = drawAll;
  useEffect(() => {
    let revealed = -1;
    let wasFollowing = playback.following;
    let frame = 0;
    const show = (index: number, tries = 0) => {
      cancelAnimationFrame(frame);
      const row = document.getElementById(`segment-${index}`);
      if (row) {
        if (!editing()) reveal(row);
        return;
      }
      if (tries === 0) drawAllNow.current();
      if (tries < WAIT_FRAMES) frame = requestAnimationFrame(() => show(index, tries + 1));
    };
    const onChange = () => {
      const index = playback.playingIndex;
      const following = playback.following;
      if (following && index >= 0 && (index !== revealed || !wasFollowing)) {
        revealed = index;
        show(index);
      }
      wasFollowing = following;
    };
    const stop = (event: Event) => {
      const target = event.target;
      // The side panel scrolls on its own; the transcript's place is unchanged by it.
      if (target instanceof Element && target.closest('.note-panels, .player')) return;
      if (event instanceof KeyboardEvent) {
        if (!SCROLL_KEYS.has(event.key)) return;
        if (target instanceof HTMLElement && target.closest('input, textarea, select, [role="tab"]')) return;
      }
      if (event.type === 'mousedown' && target !== document.documentElement) return;
      playback.setFollowing(false);
    };
    const events = ['wheel', 'touchmove', 'keydown', 'mousedown'];
    for (const name of events) document.addEventListener(name, stop, { passive: true });
    const unsubscribe = playback.subscribe(onChange);
    return () => {
      cancelAnimationFrame(frame);
      unsubscribe();
      for (const name of events) document.removeEventListener(name, stop);
    };
  }, [playback]);
}
