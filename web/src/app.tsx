import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi } from './api.ts';
import {
  beginSignIn,
  CALLBACK_PATH,
  completeSignIn,
  currentSession,
  signedInOnThisBrowser,
  signOut,
} from './auth.ts';
import { RecordingIndicator } from './components/recording-indicator.tsx';
import { Toast, type ToastState } from './components/toast.tsx';
import type { AppConfig } from './config.ts';
import { handBackConsent } from './consent-window.ts';
import { type AnnounceOptions, App as AppContextProvider } from './context.ts';
import { messageOf } from './hooks.ts';
import { AccountPage } from './pages/account.tsx';
import { AskPage } from './pages/ask.tsx';
import { NotePage } from './pages/note.tsx';
import { NotesPage } from './pages/notes.tsx';
import { SearchPage } from './pages/search.tsx';
import { RecorderProvider } from './recorder/session.tsx';
import { href, navigate, type Route, useRoute } from './router.ts';
import { useTheme } from './theme.ts';

export function Root({ config }: { config: AppConfig }) {
  const [signedIn, setSignedIn] = useState(() => currentSession() !== null);
  const [callbackError, setCallbackError] = useState<string | null>(null);
  const [finishing, setFinishing] = useState(location.pathname === CALLBACK_PATH);
  // The small consent window of askPermission: its answer goes back to the tab that asked.
  const [handedBack] = useState(
    () => location.pathname === CALLBACK_PATH && handBackConsent(new URLSearchParams(location.search)),
  );
  // A new tab (or a link opened in one) of a browser signed in here signs in by itself: the
  // browser's sign-in session answers without a page, and the tab lands where the link pointed.
  const [resuming, setResuming] = useState(
    () => !signedIn && location.pathname !== CALLBACK_PATH && signedInOnThisBrowser(),
  );

  useEffect(() => {
    if (!resuming) return;
    beginSignIn(config, location.hash).catch((error: unknown) => {
      setCallbackError(messageOf(error));
      setResuming(false);
    });
  }, [config, resuming]);

  useEffect(() => {
    if (location.pathname !== CALLBACK_PATH || handedBack) return;
    completeSignIn(config, new URLSearchParams(location.search)).then(
      (returnTo) => {
        history.replaceState(null, '', `/${returnTo || '#/'}`);
        setSignedIn(true);
        setFinishing(false);
      },
      (error: unknown) => {
        history.replaceState(null, '', '/');
        setCallbackError(messageOf(error));
        setFinishing(false);
      },
    );
  }, [config, handedBack]);

  if (handedBack) return <p class="center">Permission given. This window closes by itself.</p>;
  if (finishing || resuming) return <p class="center">Signing you in…</p>;
  if (!signedIn) return <SignInPage config={config} error={callbackError} />;
  // A sign-in that failed while this tab kept its session (e.g. one to another account, refused) is
  // said on the signed-in page, where the person is.
  return (
    <SignedInApp
      config={config}
      onSignedOut={() => setSignedIn(false)}
      notice={callbackError}
      onNoticeRead={() => setCallbackError(null)}
    />
  );
}

function SignInPage({ config, error }: { config: AppConfig; error: string | null }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState(error);
  const start = () => {
    setBusy(true);
    beginSignIn(config, location.hash).catch((reason: unknown) => {
      setFailure(messageOf(reason));
      setBusy(false);
    });
  };
  return (
    <main id="main" class="sign-in">
      <h1>Notes</h1>
      <p>Audio in, notes out: upload a recording, read and correct its transcript, ask across your notes.</p>
      {failure && (
        <p role="alert" class="error">
          {failure}
        </p>
      )}
      <button type="button" class="primary" onClick={start} disabled={busy}>
        {busy ? 'Opening sign-in…' : 'Sign in'}
      </button>
    </main>
  );
}

function SignedInApp({
  config,
  onSignedOut,
  notice,
  onNoticeRead,
}: {
  config: AppConfig;
  onSignedOut: () => void;
  notice: string | null;
  onNoticeRead(): void;
}) {
  const route = useRoute();
  const [toast, setToast] = useState<ToastState | null>(null);
  const theme = useTheme();
  const context = useMemo(
    () => ({
      api: createApi(config, onSignedOut),
      config,
      announce: (message: string, options?: AnnounceOptions) =>
        setToast(message ? { message, undo: options?.undo, returnFocus: focusedControl() } : null),
      signOut: async () => {
        await signOut(config);
        onSignedOut();
      },
    }),
    [config, onSignedOut],
  );
  const leave = context.signOut;

  return (
    <AppContextProvider.Provider value={context}>
      <RecorderProvider>
        <button type="button" class="skip" onClick={skipToMain}>
          Skip to content
        </button>
        <header class="bar">
          <a class="brand" href={href('')}>
            Notes
          </a>
          <nav aria-label="Main">
            <a href={href('')} aria-current={current(route, '')}>
              Notes
            </a>
            <a href={href('trash')} aria-current={current(route, 'trash')}>
              Trash
            </a>
            <a href={href('ask')} aria-current={current(route, 'ask')}>
              Ask
            </a>
            <a href={href('account')} aria-current={current(route, 'account')}>
              Account
            </a>
          </nav>
          <RecordingIndicator hidden={onNotesList(route)} />
          <SearchBox initial={route.path[0] === 'search' ? (route.query.get('q') ?? '') : ''} />
          <span class="theme">
            <button
              type="button"
              class="quiet theme-toggle"
              aria-pressed={theme.theme === 'dark'}
              onClick={theme.toggle}
            >
              Dark mode
            </button>
            {theme.chosen && (
              <button type="button" class="quiet" onClick={theme.followSystem}>
                Follow the system
              </button>
            )}
          </span>
          <button type="button" class="quiet" onClick={leave}>
            Sign out
          </button>
        </header>
        <main id="main" tabIndex={-1}>
          {notice && (
            <div role="alert" class="error notice">
              <p>{notice}</p>
              <button type="button" onClick={onNoticeRead}>
                Dismiss
              </button>
            </div>
          )}
          <Page route={route} />
        </main>
        <Toast toast={toast} onDone={() => setToast(null)} />
      </RecorderProvider>
    </AppContextProvider.Provider>
  );
}

function Page({ route }: { route: Route }) {
  const [section, id] = route.path;
  switch (section) {
    case undefined:
      return <NotesPage state="active" collectionId={route.query.get('collection')} />;
    case 'trash':
      return <NotesPage state="trashed" collectionId={null} />;
    case 'notes':
      // Keyed by the note: another note is another page, with its own player, scroll, editors and
      // panels; without the key Preact would keep the one page and only change its note.
      return id ? (
        <NotePage key={id} noteId={id} startAt={Number(route.query.get('t') ?? Number.NaN)} />
      ) : (
        <NotFound />
      );
    case 'search':
      return (
        <SearchPage query={route.query.get('q') ?? ''} includeTrashed={route.query.get('trashed') === '1'} />
      );
    case 'ask':
      return <AskPage />;
    case 'account':
      return <AccountPage />;
    default:
      return <NotFound />;
  }
}

function SearchBox({ initial }: { initial: string }) {
  const [query, setQuery] = useState(initial);
  useEffect(() => setQuery(initial), [initial]);
  return (
    <search class="search">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (query.trim()) navigate(href('search', { q: query.trim() }));
        }}
      >
        <label for="search-notes" class="visually-hidden">
          Search notes
        </label>
        <input
          id="search-notes"
          type="search"
          placeholder="Search what was said"
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
      </form>
    </search>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is nothing here. <a href={href('')}>Back to your notes</a>
      </p>
    </section>
  );
}

/** The page where the recorder's own controls are. */
function onNotesList(route: Route): boolean {
  return route.path.length === 0;
}

function current(route: Route, section: string): 'page' | undefined {
  return (route.path[0] ?? '') === section ? 'page' : undefined;
}

/** The control with the focus now (none when it is on the page's body). */
function focusedControl(): HTMLElement | null {
  const focused = document.activeElement;
  return focused instanceof HTMLElement && focused !== document.body ? focused : null;
}

/** A button, not a `#main` link: the hash is the router's. */
function skipToMain() {
  document.getElementById('main')?.focus();
}
