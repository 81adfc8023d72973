import { useCallback, useRef, useState } from 'preact/hooks';
import { PermissionNeeded } from './api.ts';
import { currentSession } from './auth.ts';
import { askPermission, PermissionNotGiven } from './consent-window.ts';
import { useApp } from './context.ts';
import { messageOf } from './hooks.ts';
import { permissionWords } from './permission-words.ts';

/**
 * One call to the API started by a person's action (Save, Trash, Generate…): whether it is under
 * way and why it failed, so the control that started it can say so in place. A second click while
 * pending is ignored, so an impatient double click never sends the request twice. When the call
 * needed a permission the session lacks, `permission` asks for it there, and once given the same
 * call runs again.
 */
export interface Action<A extends unknown[]> {
  run(...args: A): Promise<boolean>;
  pending: boolean;
  error: string | null;
  clearError(): void;
  permission: PermissionRequest | null;
}

export interface PermissionRequest {
  /** The scopes the session lacks (permission-words.ts says them in words). */
  missing: string[];
  /** Opens the consent page; once the permission is given, runs the action again. */
  allow(): Promise<void>;
  /** Whether the consent page is open (or the new session being fetched). */
  asking: boolean;
  /** Stops waiting for the consent window (or drops the request when not asking). */
  dismiss(): void;
}

export function useAction<A extends unknown[]>(perform: (...args: A) => Promise<void>): Action<A> {
  const { config } = useApp();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [needed, setNeeded] = useState<{ failure: PermissionNeeded; args: A } | null>(null);
  const [asking, setAsking] = useState(false);
  const waiting = useRef<AbortController | null>(null);
  const performRef = useRef(perform);
  performRef.current = perform;
  const busy = useRef(false);
  const run = useCallback(async (...args: A) => {
    if (busy.current) return false;
    busy.current = true;
    setPending(true);
    setError(null);
    setNeeded(null);
    try {
      await performRef.current(...args);
      return true;
    } catch (failure) {
      if (failure instanceof PermissionNeeded) setNeeded({ failure, args });
      else setError(messageOf(failure));
      return false;
    } finally {
      busy.current = false;
      setPending(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  const permission: PermissionRequest | null = needed && {
    missing: needed.failure.missing,
    asking,
    dismiss: () => {
      waiting.current?.abort();
      setNeeded(null);
    },
    allow: async () => {
      const controller = new AbortController();
      waiting.current = controller;
      setAsking(true);
      const missing = needed.failure.missing;
      try {
        await askPermission(config, needed.failure.wanted, controller.signal);
        setNeeded(null);
        // Allow with the box unticked gives a session without it: say so, rather than run the
        // action into the same refusal and show the same request again.
        const held = (currentSession()?.scope ?? '').split(' ');
        const stillMissing = missing.filter((scope) => !held.includes(scope));
        if (stillMissing.length > 0) {
          setError(notGiven(stillMissing));
          return;
        }
        await run(...needed.args);
      } catch (failure) {
        setNeeded(null);
        if (failure instanceof PermissionNotGiven) {
          if (!controller.signal.aborted) setError(notGiven(missing));
        } else setError(messageOf(failure));
      } finally {
        waiting.current = null;
        setAsking(false);
      }
    },
  };
  return { run, pending, error, clearError, permission };
}

/** Why nothing happened after the consent page: the permission was left unticked or denied. */
function notGiven(missing: readonly string[]): string {
  const words = permissionWords(missing);
  return `Nothing was done: the permission to ${words} was not given (its box was unticked, or Deny was pressed). To go ahead, try again and leave “${words}” ticked on the consent page.`;
}
