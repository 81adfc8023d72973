import { useEffect } from 'preact/hooks';
import type { Playback } from './playback.ts';

const SKIP_MS = 5000;

/** Where typing goes: keys pressed there are the person's text, never a shortcut. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && target.type !== 'checkbox' && target.type !== 'radio';
}

/**
 * Controls that Space (and, in a tab list, the arrows) already press or move. Not links: Space does
 * not follow a link, it would only scroll (a chapter or citation link focused in the side panel).
 */
function ownsKey(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (key === ' ') return target.closest('button, summary, [role="button"], [role="tab"]') !== null;
  return target.closest('[role="tab"]') !== null;
}

/**
 * The keys people know from video players, on the whole page while focus is not in a field: Space
 * or K plays and pauses, J / ← go 5 s back, L / → 5 s forward.
 */
export function useShortcuts(playback: Playback): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (typingIn(event.target) || ownsKey(event.target, event.key)) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      if (key === ' ' || key === 'k') playback.toggle();
      else if (key === 'j' || key === 'ArrowLeft') playback.skip(-SKIP_MS);
      else if (key === 'l' || key === 'ArrowRight') playback.skip(SKIP_MS);
      else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [playback]);
}
