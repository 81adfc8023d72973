import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, SignedOut } from './api.ts';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
  /** Shows `data` at once (an answer that already holds the new state), until the next load. */
  replace(data: T): void;
}

/**
 * Loads once per change of `key` and keeps the last data while reloading the same key (no layout
 * jumps); data of another key is never shown, so nothing acts on the previous note's state.
 */
export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ key: string; data: T | null; error: string | null; loading: boolean }>(
    {
      key,
      data: null,
      error: null,
      loading: true,
    },
  );
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setState((previous) =>
      previous.key === key ? { ...previous, loading: true } : { key, data: null, error: null, loading: true },
    );
    loadRef.current().then(
      (data) => live && setState({ key, data, error: null, loading: false }),
      (error: unknown) =>
        live && setState((previous) => ({ ...previous, key, error: messageOf(error), loading: false })),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  const replace = useCallback(
    (data: T) =>
      setState((previous) => (previous.key === key ? { ...previous, data, error: null } : previous)),
    [key],
  );
  const current = state.key === key;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    loading: current ? state.loading : true,
    reload,
    replace,
  };
}

/** Calls `tick` every `ms` while `active`; stops when the component goes. */
export function useInterval(active: boolean, ms: number, tick: () => void): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => tickRef.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiError || error instanceof SignedOut) return error.message;
  if (error instanceof TypeError)
    return 'The service could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong';
}

/**
 * Focus for a field that appears because the user asked for it (an editor opened by a button), given
 * as it appears, so no key typed before the next paint goes elsewhere.
 */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return ref;
}
