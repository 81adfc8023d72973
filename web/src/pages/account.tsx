import { useState } from 'preact/hooks';
import { ConfirmDeletion } from '../components/confirm-deletion.tsx';
import { useApp } from '../context.ts';
import { when } from '../format.ts';
import { messageOf, useLoad } from '../hooks.ts';

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
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const { data } = await api.request<ApiKey & { api_key: string }>('/v1/account/keys', {
        method: 'POST',
        body: { name: name.trim() },
      });
      setCreated({ name: data.name, secret: data.api_key });
      setName('');
      keys.reload();
    } catch (reason) {
      setError(messageOf(reason));
    }
  };

  const revoke = async () => {
    if (!revoking) return;
    try {
      await api.request(`/v1/account/keys/${revoking.key_id}`, { method: 'DELETE' });
      announce(`Key “${revoking.name}” revoked`);
      setRevoking(null);
      keys.reload();
    } catch (reason) {
      announce(messageOf(reason));
    }
  };

  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
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
      {keys.data && keys.data.length === 0 && <p class="empty">No API keys yet.</p>}
      <ul class="keys">
        {(keys.data ?? []).map((key) => (
          <li key={key.key_id}>
            <strong>{key.name || 'Unnamed key'}</strong> <code>{key.prefix}…</code>{' '}
            <span class="meta">
              created {when(key.created_at)}
              {key.revoked_at !== null && `, revoked ${when(key.revoked_at)}`}
            </span>
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
          what={`the API key “${revoking.name}”: programs using it stop working at once`}
          action="Revoke the key"
          onConfirm={revoke}
          onCancel={() => setRevoking(null)}
        />
      )}
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
      <form onSubmit={create} class="inline">
        <label for="key-name">Name of a new key</label>
        <input
          id="key-name"
          value={name}
          maxLength={100}
          required
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit">Create key</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
