import { useEffect, useRef } from 'preact/hooks';

/**
 * How long a click waits for a second one. Most double clicks come well within it; a longer wait
 * would be felt on every click that plays.
 */
const SECOND_CLICK_MS = 250;

/**
 * A click's action run once no second click follows: the first click of a double click does
 * nothing, so a double click (which opens the words for correction) does not also play them.
 */
export function useSingleClick(): (event: MouseEvent, action: () => void) => void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (event, action) => {
    clearTimeout(timer.current);
    if (event.detail > 1) return;
    timer.current = setTimeout(action, SECOND_CLICK_MS);
  };
}
