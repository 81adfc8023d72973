import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { ApiError, PermissionNeeded } from '../api.ts';
import { currentSession } from '../auth.ts';
import { useApp } from '../context.ts';
import { ago, when } from '../format.ts';
import { useFocusOnMount, useLoad } from '../hooks.ts';
import { permissionWords } from '../permission-words.ts';
import {
  type AccountSession,
  browserWords,
  inReadingOrder,
  sessionLabel,
  sessionName,
  signedInWords,
  whereWords,
} from '../session-words.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { Skeleton } from './skeleton.tsx';

/**
 * Everything signed in to the account (openapi.yaml, listSessions), as a person reads it: each
 * application and browser, what it may do, what signed it in, when; each can be ended here, and
 * "Sign out everywhere else" ends all but this tab and this browser. Ending asks first, as revoking
 * a key does, but gently: a session ended can simply sign in again.
 */
export function Sessions({ keysRevoked = 0 }: { keysRevoked?: number }) {
  const { api, announce, signOut } = useApp();
  const sessions = useLoad(
    'sessions',
    async () => (await api.request<{ sessions: AccountSession[] }>('/v1/account/sessions')).data.sessions,
  );
  // Revoking a key ends what it signed in: the list is read again after each revocation.
  const reloadSessions = sessions.reload;
  useEffect(() => {
    if (keysRevoked > 0) reloadSessions();
  }, [keysRevoked, reloadSessions]);
  const [confirming, setConfirming] = useState<AccountSession | null>(null);
  const [failedOn, setFailedOn] = useState<string | null>(null);
  const [everywhereAsked, setEverywhereAsked] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const all = sessions.data ?? [];

  const end = useAction(async (session: AccountSession) => {
    setFailedOn(session.session_id);
    setOutcome(null);
    const name = sessionLabel(session);
    try {
      await api.request(`/v1/account/sessions/${encodeURIComponent(session.session_id)}`, {
        method: 'DELETE',
      });
      announce(`Session ended: ${name}`);
    } catch (failure) {
      // Answered: the question goes, and what to do now (or the permission to give) shows in the row.
      setConfirming(null);
      if (failure instanceof ApiError && failure.status === 403) throw needsMore(session, failure);
      // Ended meanwhile (from another tab, or it expired): what was asked for is done.
      if (!(failure instanceof ApiError && failure.status === 404)) throw failure;
      announce(`${name} had already ended`);
    }
    setConfirming(null);
    sessions.replace(all.filter((each) => !endsWith(each, session)));
    sessions.reload();
    heading.current?.focus();
  });

  const endOthers = useAction(async () => {
    setFailedOn(null);
    const { data } = await api.request<{ ended: number; left: number }>('/v1/account/sessions', {
      method: 'DELETE',
    });
    setOutcome(endedWords(data));
    // The toast says it short; the line under the button says what to do about any left.
    announce(
      `Ended ${data.ended} session${data.ended === 1 ? '' : 's'}${data.left > 0 ? `, ${data.left} left` : ''}`,
    );
    setEverywhereAsked(false);
    sessions.reload();
  });

  const signOutHere = useAction(() => signOut());
  const others = all.filter((session) => !session.current);

  return (
    <section aria-labelledby="sessions-title" class="sessions">
      <h2 id="sessions-title" ref={heading} tabIndex={-1}>
        Signed-in sessions
      </h2>
      <p>
        Where your account is signed in: this web app in each browser tab, the browsers that keep you signed
        in, and applications such as AI assistants. End any you do not recognise; it must sign in again to use
        your notes.
      </p>
      {sessions.error && (
        <p role="alert" class="error">
          {sessions.error}
        </p>
      )}
      {sessions.loading && !sessions.data && <Skeleton label="Loading your sessions…" />}
      {sessions.data && all.length === 0 && <p class="empty">Nothing is signed in.</p>}
      <ul class="session-list">
        {inReadingOrder(all).map((session) => (
          <SessionRow
            key={session.session_id}
            session={session}
            all={all}
            confirming={confirming?.session_id === session.session_id}
            busy={end.pending && confirming?.session_id === session.session_id}
            onEnd={() => {
              end.clearError();
              setConfirming(session);
            }}
            onConfirm={() => void end.run(session)}
            onCancel={() => setConfirming(null)}
            onSignOut={() => void signOutHere.run()}
            signingOut={signOutHere.pending}
            feedback={failedOn === session.session_id && <ActionFeedback action={end} />}
          />
        ))}
      </ul>
      {others.length > 0 && !everywhereAsked && (
        <p>
          <button
            type="button"
            class="danger"
            onClick={() => {
              endOthers.clearError();
              setEverywhereAsked(true);
            }}
          >
            Sign out everywhere else
          </button>
        </p>
      )}
      {everywhereAsked && (
        <Confirm
          question="Sign out everywhere else?"
          explanation="Every other browser and application signed in to your account must sign in again. This tab and this browser stay signed in."
          action="Sign out everywhere else"
          busy={endOthers.pending}
          busyLabel="Signing out…"
          onConfirm={() => void endOthers.run()}
          onCancel={() => setEverywhereAsked(false)}
        />
      )}
      <ActionFeedback action={endOthers} />
      {outcome && <p class="meta session-outcome">{outcome}</p>}
    </section>
  );
}

function SessionRow({
  session,
  all,
  confirming,
  busy,
  onEnd,
  onConfirm,
  onCancel,
  onSignOut,
  signingOut,
  feedback,
}: {
  session: AccountSession;
  all: readonly AccountSession[];
  confirming: boolean;
  busy: boolean;
  onEnd(): void;
  onConfirm(): void;
  onCancel(): void;
  onSignOut(): void;
  signingOut: boolean;
  feedback: ComponentChildren;
}) {
  const where = whereWords(session, all);
  const browser = session.kind === 'browser' ? browserWords(session.user_agent) : null;
  const label = where ? `${sessionLabel(session)}, ${where.toLowerCase()}` : sessionLabel(session);
  const endButton = useRef<HTMLButtonElement>(null);
  // The question gone (Cancel, Escape, or a failure told in the row): back to the button that asked.
  const asked = useRef(false);
  useEffect(() => {
    if (asked.current && !confirming) endButton.current?.focus();
    asked.current = confirming;
  }, [confirming]);
  const tabs = all.filter((other) => other.browser_session_id === session.session_id).length;
  return (
    <li class={session.current ? 'session current' : 'session'}>
      <div class="session-what">
        <p class="session-name">
          <strong>{sessionName(session)}</strong>
          {browser && <span> · {browser}</span>}
          {where && <span class="badge here">{where}</span>}
        </p>
        <p class="meta">{mayWords(session)}</p>
        <p class="meta">{signedInWords(session)}</p>
        <p class="meta">
          Started <Moment at={session.created_at} />
          {' · '}
          {session.last_used_at === null ? (
            'not used since'
          ) : (
            <>
              last used <Moment at={session.last_used_at} />
            </>
          )}
          {' · '}
          ends by itself <Moment at={session.expires_at} />
        </p>
      </div>
      {session.current ? (
        <button
          type="button"
          class="session-end"
          onClick={onSignOut}
          aria-disabled={signingOut ? 'true' : undefined}
          aria-label={`Sign out: ${label}`}
        >
          {signingOut ? 'Signing out…' : 'Sign out'}
        </button>
      ) : (
        !confirming && (
          <button
            type="button"
            class="session-end danger"
            ref={endButton}
            onClick={onEnd}
            aria-label={`End session: ${label}`}
          >
            End session
          </button>
        )
      )}
      {confirming && (
        <Confirm
          question={`End the session of ${sessionName(session)}${browser ? ` (${browser})` : ''}?`}
          explanation={
            session.kind === 'browser'
              ? `That browser must sign in again with a key${tabs > 0 ? `, and the ${tabs === 1 ? 'application' : `${tabs} applications`} it signed in ${tabs === 1 ? 'ends' : 'end'} with it` : ''}.`
              : 'It stops working at once and must sign in again to use your notes.'
          }
          action="End session"
          busy={busy}
          busyLabel="Ending…"
          onConfirm={onConfirm}
          onCancel={onCancel}
        />
      )}
      {/* After the button, so the keyboard reaches "Give permission and continue" next. */}
      {feedback && <div class="session-feedback">{feedback}</div>}
    </li>
  );
}

/** A small question in place, its answer button focused; Escape or Cancel keeps things as they are. */
function Confirm({
  question,
  explanation,
  action,
  busy,
  busyLabel,
  onConfirm,
  onCancel,
}: {
  question: string;
  explanation: string;
  action: string;
  busy: boolean;
  busyLabel: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  const focus = useFocusOnMount<HTMLButtonElement>();
  return (
    <form
      class="confirm session-confirm"
      onSubmit={(event) => {
        event.preventDefault();
        if (!busy) onConfirm();
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <p>
        <strong>{question}</strong> {explanation}
      </p>
      <p class="actions">
        <button type="submit" class="danger" ref={focus} aria-disabled={busy ? 'true' : undefined}>
          {busy ? busyLabel : action}
        </button>{' '}
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </p>
    </form>
  );
}

/** "5 minutes ago", with the exact moment for those who point at it. */
function Moment({ at }: { at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={when(at)}>
      {ago(at)}
    </time>
  );
}

function mayWords(session: AccountSession): string {
  const words = permissionWords(session.scopes);
  if (session.kind === 'browser')
    return `Lets this web app and other applications sign in here without the key, giving them at most permission to ${words}.`;
  return session.scopes.length === 0 ? 'May do nothing with your notes.' : `May ${words}.`;
}

/**
 * Ending another session takes notes:write and every permission it holds (openapi.yaml,
 * endSession): the refusal becomes the permission to ask for in place, in words, as creating a key
 * does; once given, the same End session runs again.
 */
function needsMore(session: AccountSession, refusal: ApiError): ApiError {
  if (refusal instanceof PermissionNeeded) return refusal;
  const held = (currentSession()?.scope ?? '').split(' ').filter(Boolean);
  const missing = [...new Set(['notes:write', ...session.scopes])].filter((scope) => !held.includes(scope));
  return missing.length > 0 ? new PermissionNeeded([...held, ...missing], missing, refusal.body) : refusal;
}

/** Whether ending `ended` ends `session` too (a browser takes the applications it signed in). */
function endsWith(session: AccountSession, ended: AccountSession): boolean {
  return session.session_id === ended.session_id || session.browser_session_id === ended.session_id;
}

function endedWords({ ended, left }: { ended: number; left: number }): string {
  if (ended === 0 && left === 0) return 'No other session was signed in: nothing to end.';
  const done = `Ended ${ended === 0 ? 'no' : ended} session${ended === 1 ? '' : 's'}.`;
  if (left === 0) return done;
  const [they, them] = left === 1 ? ['it', 'it'] : ['they', 'them'];
  return `${done} ${left} left: ${they} may do more than this session. End ${them} above: you will be asked for that permission first.`;
}
