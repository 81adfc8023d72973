import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.ts';
import type { AppConfig } from './config.ts';

export interface AppContext {
  api: Api;
  config: AppConfig;
  /**
   * A short message for everyone (screen readers included), e.g. "Note moved to the trash"; with
   * `undo`, the toast offers an Undo button that runs it (and stays a little longer).
   */
  announce(message: string, options?: AnnounceOptions): void;
  /** Signs out as the header's Sign out does: the browser's sign-in and every tab's session end. */
  signOut(): Promise<void>;
}

export interface AnnounceOptions {
  undo?: () => Promise<void> | void;
}

export const App = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const context = useContext(App);
  if (!context) throw new Error('useApp outside the app');
  return context;
}
