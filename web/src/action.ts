import { useCallback, useRef, useState } from 'preact/hooks';
import { messageOf } from './hooks.ts';

/**
 * One call to the API started by a person's action (Save, Trash, Generate…): whether it is under
 * way and why it failed, so the control that started it can say so in place. A second click while
 * pending is ignored, so an impatient double click never sends the request twice.
 */
export interface Action<A extends unknown[]> {
  run(...args: A): Promise<boolean>;
  pending: boolean;
  error: string | null;
  clearError(): void;
}

export function useAction<A extends unknown[]>(perform: (...args: A) => Promise<void>): Action<A> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const performRef = useRef(perform);
  performRef.current = perform;
  const busy = useRef(false);
  const run = useCallback(async (...args: A) => {
    if (busy.current) return false;
    busy.current = true;
    setPending(true);
    setError(null);
    try {
      await performRef.current(...args);
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    } finally {
      busy.current = false;
      setPending(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  return { run, pending, error, clearError };
}
