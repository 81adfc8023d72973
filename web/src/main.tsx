import { render } from 'preact';
import { Root } from './app.tsx';
import { loadConfig } from './config.ts';
import { applyTheme } from './theme.ts';

applyTheme();

const root = document.getElementById('app');
if (root) {
  loadConfig().then(
    (config) => {
      root.replaceChildren(); // the static "Loading…" placeholder
      render(<Root config={config} />, root);
    },
    (error: unknown) => {
      root.textContent = error instanceof Error ? error.message : 'The app could not start';
    },
  );
}
