import { useEffect, useState } from 'preact/hooks';

/**
 * Light or dark: the system's choice (`prefers-color-scheme`) unless the person picked one in the
 * app, which this browser remembers (localStorage). The choice is a `data-theme` on the root
 * element; styles.css holds both palettes as custom properties and sets `color-scheme` with them.
 */
export type Theme = 'light' | 'dark';

const THEME_KEY = 'notes.theme';
const darkQuery = () => matchMedia('(prefers-color-scheme: dark)');

function chosenTheme(): Theme | null {
  const stored = localStorage.getItem(THEME_KEY);
  return stored === 'light' || stored === 'dark' ? stored : null;
}

/** The theme in effect now. */
export function currentTheme(): Theme {
  return chosenTheme() ?? (darkQuery().matches ? 'dark' : 'light');
}

/** Applies the remembered choice to the page (before the first render, so nothing flashes). */
export function applyTheme(): void {
  const chosen = chosenTheme();
  if (chosen) document.documentElement.dataset.theme = chosen;
  else delete document.documentElement.dataset.theme;
}

/**
 * The theme in effect, following the system until the person switches, which is remembered, and
 * the way back to following the system.
 */
export function useTheme(): { theme: Theme; chosen: boolean; toggle(): void; followSystem(): void } {
  const [theme, setTheme] = useState(currentTheme);
  const [chosen, setChosen] = useState(() => chosenTheme() !== null);
  // The system may switch (at dusk, or by hand) while the app is open.
  useEffect(() => {
    const query = darkQuery();
    const follow = () => setTheme(currentTheme());
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  return {
    theme,
    chosen,
    toggle() {
      const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
      localStorage.setItem(THEME_KEY, next);
      applyTheme();
      setTheme(next);
      setChosen(true);
    },
    followSystem() {
      localStorage.removeItem(THEME_KEY);
      applyTheme();
      setTheme(currentTheme());
      setChosen(false);
    },
  };
}
