import { useEffect, useState } from 'preact/hooks';
import { currentSession, sessionAccount, VISIT_PREFIX } from './auth.ts';
import type { Exchange } from './components/ask-exchange.tsx';

/** Exchanges kept at most: a long visit keeps its latest questions, and storage stays small. */
const MAX_EXCHANGES = 50;

/**
 * The visit's Ask thread, kept in this tab's sessionStorage under the signed-in account, so that
 * opening a citation and coming Back finds the questions and answers still there (review of issue
 * 22, finding 4). Per account, so another account signed in to the same tab never sees it; gone
 * when the tab closes, and removed at sign-out with the rest of the visit's data (auth.ts).
 */
export function useAskThread(): [Exchange[], (update: (previous: Exchange[]) => Exchange[]) => void] {
  const [key] = useState(threadKey);
  const [thread, setThread] = useState<Exchange[]>(() => load(key));
  useEffect(() => {
    if (key === null) return;
    try {
      sessionStorage.setItem(key, JSON.stringify(thread.slice(-MAX_EXCHANGES)));
    } catch {
      // Storage full or refused: the thread still lives on this page, as before.
    }
  }, [key, thread]);
  return [thread, setThread];
}

function threadKey(): string | null {
  const account = sessionAccount(currentSession());
  return account === null ? null : `${VISIT_PREFIX}ask-thread.${account}`;
}

function load(key: string | null): Exchange[] {
  if (key === null) return [];
  try {
    const stored = JSON.parse(sessionStorage.getItem(key) ?? '[]') as unknown;
    return Array.isArray(stored) ? (stored as Exchange[]) : [];
  } catch {
    return [];
  }
}
