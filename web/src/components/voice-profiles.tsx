import { useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import { when } from '../format.ts';
import { useFocusOnMount, useLoad } from '../hooks.ts';
import type { VoiceProfiles as Profiles, VoiceProfile } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { ConfirmDeletion } from './confirm-deletion.tsx';
import { Skeleton } from './skeleton.tsx';

/**
 * Voice profiles (openapi.yaml, listVoiceProfiles): whether the account keeps them, what that means,
 * and each kept voice to rename or delete. Off until turned on here; off deletes them all, after the
 * same typed confirmation as any permanent deletion.
 */
export function VoiceProfiles() {
  const { api, announce } = useApp();
  const loaded = useLoad(
    'voice-profiles:settings',
    async () => (await api.request<Profiles>('/v1/account/voice-profiles')).data,
  );
  const [turningOff, setTurningOff] = useState(false);
  const [deleting, setDeleting] = useState<VoiceProfile | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  // What the person just ticked, shown while the service is asked (the box would jump back otherwise).
  const [ticked, setTicked] = useState<boolean | null>(null);
  // Where focus goes when the control that held it goes (a profile renamed or deleted).
  const heading = useRef<HTMLHeadingElement>(null);

  const choose = useAction(async (enabled: boolean) => {
    setTicked(enabled);
    try {
      const { data } = await api.request<Profiles>('/v1/account/voice-profiles', {
        method: 'PATCH',
        body: { enabled },
      });
      loaded.replace(data);
    } finally {
      setTicked(null);
    }
    setTurningOff(false);
    announce(enabled ? 'Voice profiles are on' : 'Voice profiles are off, and every kept voice was deleted');
  });
  const remove = useAction(async (profile: VoiceProfile) => {
    await api.request(`/v1/account/voice-profiles/${profile.profile_id}`, { method: 'DELETE' });
    announce(`${profile.name}'s voice deleted`);
    setDeleting(null);
    loaded.reload();
    heading.current?.focus();
  });
  const rename = useAction(async (profile: VoiceProfile, name: string) => {
    await api.request(`/v1/account/voice-profiles/${profile.profile_id}`, {
      method: 'PATCH',
      body: { name },
    });
    announce(`Renamed to ${name}`);
    setRenaming(null);
    loaded.reload();
    heading.current?.focus();
  });

  const settings = loaded.data;
  const profiles = settings?.profiles ?? [];
  return (
    <section aria-labelledby="voice-profiles-title" class="voice-profiles">
      <h2 id="voice-profiles-title" ref={heading} tabIndex={-1}>
        Voice profiles
      </h2>
      <p>
        With voice profiles on, a voice you keep is recognised in later recordings: the speaker is named for
        you to confirm or correct. A profile holds numbers a voice model computed from a person's speech,
        never the audio, and never leaves your account. Voices are biometric data: keep someone's voice only
        with their consent. Only recordings whose speakers a voice model told apart can teach or be named.
      </p>
      {loaded.error && (
        <p role="alert" class="error">
          {loaded.error}
        </p>
      )}
      {loaded.loading && !settings && <Skeleton label="Loading voice profiles…" />}
      {settings && (
        <label class="switch">
          <input
            type="checkbox"
            checked={ticked ?? settings.enabled}
            disabled={choose.pending}
            onChange={(event) => {
              const on = event.currentTarget.checked;
              if (!on && profiles.length > 0) {
                // Deleting kept voices asks first; the box shows the truth until then.
                event.currentTarget.checked = true;
                setTurningOff(true);
                return;
              }
              void choose.run(on);
            }}
          />{' '}
          Recognise kept voices in new recordings
        </label>
      )}
      <ActionFeedback action={choose} />
      {turningOff && (
        <ConfirmDeletion
          what={`every kept voice (${profiles.length}) and turns voice profiles off; names already given in notes stay`}
          action="Turn off and delete"
          busyLabel="Deleting…"
          onConfirm={async () => void (await choose.run(false))}
          onCancel={() => setTurningOff(false)}
        />
      )}
      {settings?.enabled && profiles.length === 0 && (
        <p class="empty">
          No voices kept yet. Name a speaker in a note's transcript: the app then offers to keep their voice.
        </p>
      )}
      <ul class="keys">
        {profiles.map((profile) => (
          <li key={profile.profile_id}>
            {renaming === profile.profile_id ? (
              <RenameForm
                profile={profile}
                pending={rename.pending}
                onRename={(name) => void rename.run(profile, name)}
                onCancel={() => setRenaming(null)}
              />
            ) : (
              <>
                <strong>{profile.name}</strong>{' '}
                <span class="meta">
                  learned from {profile.taught === 1 ? 'one speaker' : `${profile.taught} speakers`},{' '}
                  {Math.round(profile.speech_seconds)} s of speech; kept since {when(profile.created_at)}
                </span>{' '}
                <button type="button" class="quiet" onClick={() => setRenaming(profile.profile_id)}>
                  Rename<span class="visually-hidden"> {profile.name}</span>
                </button>
                <button type="button" class="quiet danger" onClick={() => setDeleting(profile)}>
                  Delete<span class="visually-hidden"> {profile.name}'s voice</span>
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      <ActionFeedback action={rename} />
      {deleting && (
        <ConfirmDeletion
          what={`${deleting.name}'s kept voice: later recordings will no longer name them (names already given stay)`}
          onConfirm={async () => void (await remove.run(deleting))}
          onCancel={() => setDeleting(null)}
        />
      )}
      <ActionFeedback action={remove} />
    </section>
  );
}

function RenameForm({
  profile,
  pending,
  onRename,
  onCancel,
}: {
  profile: VoiceProfile;
  pending: boolean;
  onRename(name: string): void;
  onCancel(): void;
}) {
  const [value, setValue] = useState(profile.name);
  const focus = useFocusOnMount<HTMLInputElement>();
  const id = `voice-name-${profile.profile_id}`;
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) onRename(value.trim());
      }}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <label for={id}>New name for {profile.name}</label>
      <input
        id={id}
        ref={focus}
        value={value}
        maxLength={100}
        required
        onInput={(event) => setValue(event.currentTarget.value)}
      />
      <button type="submit" class="primary" disabled={pending}>
        {pending ? 'Renaming…' : 'Rename'}
      </button>
      <button type="button" class="quiet" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
