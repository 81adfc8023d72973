import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.ts';
import type { AppConfig } from './config.ts';

export interface AppContext {
  api: Api;
  config: AppConfig;
  /** A short message for everyone (screen readers included), e.g. "Note moved to the trash". */
  announce(message: string): void;
}

export const App = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const context = useContext(App);
  if (!context) throw new Error('useApp outside the app');
  return context;
}
