import { useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { PermissionNeeded } from '../api.ts';
import { currentSession } from '../auth.ts';
import { ActionFeedback } from '../components/action-feedback.tsx';
import { ConfirmDeletion } from '../components/confirm-deletion.tsx';
import { Sessions } from '../components/sessions.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { VoiceProfiles } from '../components/voice-profiles.tsx';
import { useApp } from '../context.ts';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { ALL_PERMISSIONS, permissionWords } from '../permission-words.ts';

interface Account {
  account_id: string;
  name: string;
  created_at: number;
}
interface ApiKey {
  key_id: string;
  name: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
  /** What the key may do: what this session could when it was made (openapi.yaml ApiKey.scopes). */
  scopes: string[];
}

/** The account, and the API keys for the CLI and integrations: create one (shown once), revoke. */
export function AccountPage() {
  const { api, announce } = useApp();
  const account = useLoad('account', async () => (await api.request<Account>('/v1/account')).data);
  const keys = useLoad(
    'keys',
    async () => (await api.request<{ keys: ApiKey[] }>('/v1/account/keys')).data.keys,
  );
  const [name, setName] = useState('');
  // A new key may do what this session may, ticked by default; ticking more asks for it first.
  const [scopes, setScopes] = useState<string[]>(() => sessionScopes());
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [keysRevoked, setKeysRevoked] = useState(0);

  const create = useAction(async () => {
    const held = sessionScopes();
    const missing = scopes.filter((scope) => !held.includes(scope));
    // The server refuses a key wider than the session: ask for the permission here, then carry on.
    if (missing.length > 0) throw new PermissionNeeded([...held, ...missing], missing, {});
    const { data } = await api.request<ApiKey & { api_key: string }>('/v1/account/keys', {
      method: 'POST',
      body: { name: name.trim(), scopes },
    });
    setCreated({ name: data.name, secret: data.api_key });
    setName('');
    keys.reload();
  });

  const revoke = useAction(async () => {
    if (!revoking) return;
    await api.request(`/v1/account/keys/${revoking.key_id}`, { method: 'DELETE' });
    announce(`Key “${revoking.name}” revoked`);
    setKeysRevoked((count) => count + 1);
    setRevoking(null);
    keys.reload();
  });

  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      {account.loading && !account.data && <Skeleton label="Loading your account…" lines={2} />}
      {account.error && (
        <p role="alert" class="error">
          {account.error}
        </p>
      )}
      {account.data && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{account.data.name}</dd>
          <dt>Account ID</dt>
          <dd>
            <code>{account.data.account_id}</code>
          </dd>
          <dt>Since</dt>
          <dd>{when(account.data.created_at)}</dd>
        </dl>
      )}
      <h2>API keys</h2>
      <p>
        Keys let the CLI and your own programs use your notes. Keep them secret; revoke one you no longer use.
      </p>
      {keys.error && (
        <p role="alert" class="error">
          {keys.error}
        </p>
      )}
      {keys.loading && !keys.data && <Skeleton label="Loading your keys…" />}
      {keys.data && keys.data.length === 0 && <p class="empty">No API keys yet.</p>}
      <ul class="keys">
        {(keys.data ?? []).map((key) => (
          <li key={key.key_id}>
            <strong>{key.name || 'Unnamed key'}</strong> <code>{key.prefix}…</code>{' '}
            <span class="meta">
              created {when(key.created_at)}
              {key.revoked_at !== null && `, revoked ${when(key.revoked_at)}`}
            </span>{' '}
            <span class="meta">May {permissionWords(key.scopes ?? [])}.</span>
            {key.revoked_at === null && (
              <button type="button" class="quiet danger" onClick={() => setRevoking(key)}>
                Revoke<span class="visually-hidden"> “{key.name || key.prefix}”</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {revoking && (
        <ConfirmDeletion
          what={`the API key “${revoking.name}”: programs using it stop working at once, and everything signed in with it (browsers, tabs, assistants) is signed out`}
          action="Revoke the key"
          busyLabel="Revoking…"
          onConfirm={async () => void (await revoke.run())}
          onCancel={() => setRevoking(null)}
        />
      )}
      <ActionFeedback action={revoke} />
      {created && (
        <div class="notice" role="alert">
          <p>Your new key “{created.name}”. Copy it now: it is shown only once.</p>
          <code class="secret">{created.secret}</code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.secret)}>
            Copy
          </button>{' '}
          <button type="button" class="quiet" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <p class="meta">
        A key may do no more than this session. Ticking a permission the session has not been given asks you
        for it first.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
        class="inline"
      >
        <label for="key-name">Name of a new key</label>
        <input
          id="key-name"
          value={name}
          maxLength={100}
          required
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <fieldset class="key-scopes">
          <legend>The new key may</legend>
          {ALL_PERMISSIONS.map((scope) => (
            <label key={scope}>
              <input
                type="checkbox"
                name="scope"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  setScopes((now) =>
                    ALL_PERMISSIONS.filter((each) =>
                      each === scope ? event.currentTarget.checked : now.includes(each),
                    ),
                  )
                }
              />{' '}
              {permissionWords([scope])}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.pending || scopes.length === 0}>
          {create.pending ? 'Creating…' : 'Create key'}
        </button>
        <ActionFeedback action={create} />
      </form>
      <Sessions keysRevoked={keysRevoked} />
      <VoiceProfiles />
    </section>
  );
}

/** The scopes this tab's session holds (after a permission is given, the wider session's). */
function sessionScopes(): string[] {
  const held = (currentSession()?.scope ?? '').split(' ');
  return ALL_PERMISSIONS.filter((scope) => held.includes(scope));
}
