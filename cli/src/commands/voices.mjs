// @ts-check
import { noteIdArg, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';

const PROFILES = '/v1/account/voice-profiles';
const PROFILE_ID = /^vp_[0-9a-f]{16}$/;
const EXAMPLE_NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';

/**
 * A profile given by ID or by name (one profile of that name, compared case-insensitively).
 * @param {import('../http.mjs').ApiClient} api
 * @param {string | undefined} value
 * @param {string} command
 * @returns {Promise<string>} the profile ID
 */
async function profileIdOf(api, value, command) {
  if (!value?.trim()) throw new UsageError('give a voice profile ID or name', command);
  if (PROFILE_ID.test(value)) return value;
  const { body } = await api.request('GET', PROFILES, { what: 'voices list' });
  const { profiles } = /** @type {{ profiles: { profile_id: string, name: string }[] }} */ (body);
  const found = profiles.filter((profile) => profile.name.toLowerCase() === value.trim().toLowerCase());
  if (found.length !== 1) {
    throw new UsageError(
      found.length === 0
        ? `no voice profile is named "${value}" (see 'notes voices list')`
        : `${found.length} voice profiles are named "${value}": give the ID`,
      command,
    );
  }
  return /** @type {{ profile_id: string }} */ (found[0]).profile_id;
}

/** @type {import('../types.mjs').CommandSpec} */
export const voicesList = {
  name: 'voices list',
  summary: 'Show whether voice profiles are on, and the profiles kept',
  operation: 'listVoiceProfiles',
  args: [],
  options: {},
  details:
    'Prints {"enabled":...,"profiles":[...]} as JSON: each profile\'s ID, name, what made it\n' +
    '(voices_by), the seconds of speech that taught it and how many speakers did. A profile keeps a\n' +
    "voice model's numbers for one person's voice, never audio; the numbers are never shown.",
  examples: ['notes voices list'],
  async run({ client }) {
    const { body } = await client().request('GET', PROFILES, { what: 'voices list' });
    printJson(body);
  },
};

/**
 * `voices on` and `voices off`: the account's choice.
 * @param {boolean} enabled
 * @returns {import('../types.mjs').CommandSpec}
 */
function switchCommand(enabled) {
  const name = enabled ? 'voices on' : 'voices off';
  return {
    name,
    summary: enabled
      ? 'Let the account keep voice profiles and name known voices in new transcripts'
      : 'Stop naming known voices and delete every voice profile',
    operation: 'updateVoiceProfileSettings',
    args: [],
    required: enabled ? undefined : '--yes',
    options: enabled
      ? {}
      : { yes: { type: 'boolean', description: 'Required: every voice profile is deleted for good' } },
    details: enabled
      ? 'Voice profiles are biometric data: turn them on only with the consent of the people whose\n' +
        "voices you keep. Then keep a speaker's voice with 'notes voices remember'."
      : 'Names already given to speakers in notes stay, as names.',
    examples: [enabled ? 'notes voices on' : 'notes voices off --yes'],
    async run({ values, client }) {
      if (!enabled && values.yes !== true) {
        throw new UsageError('turning voice profiles off deletes every one: add --yes', name);
      }
      const { body } = await client().request('PATCH', PROFILES, { body: { enabled }, what: name });
      printJson(body);
      info(enabled ? 'Voice profiles are on.' : 'Voice profiles are off; every profile was deleted.');
    },
  };
}

/** @type {import('../types.mjs').CommandSpec} */
export const voicesRemember = {
  name: 'voices remember',
  summary: "Keep a note's speaker's voice as a voice profile (or teach an existing one with --to)",
  operation: 'createVoiceProfile',
  args: ['<note_id>', '<speaker>'],
  options: {
    name: { type: 'string', value: 'name', description: "The profile's name (default: the speaker's name)" },
    to: { type: 'string', value: 'profile', description: 'Teach this profile (ID or name) instead' },
  },
  details:
    '<speaker> is a label ("Speaker 2") or the name given to it. The voice is taken from the\n' +
    'transcript as corrected, so correct it first. Needs a transcript whose speakers a voice model\n' +
    'told apart (speakers_by "voice-model:..."). Prints the profile as JSON.',
  examples: [
    `notes voices remember ${EXAMPLE_NOTE} "Speaker 2" --name Dana`,
    `notes voices remember ${EXAMPLE_NOTE} Dana --to Dana`,
  ],
  async run({ positionals, values, client }) {
    const noteId = noteIdArg(positionals[0], 'voices remember');
    const speaker = positionals[1];
    if (!speaker?.trim()) throw new UsageError('give the speaker: a label or its name', 'voices remember');
    const api = client();
    const to = stringOption(values, 'to');
    const name = stringOption(values, 'name');
    if (to && name) {
      throw new UsageError(
        'give --name for a new profile or --to for an existing one, not both',
        'voices remember',
      );
    }
    const body = {
      note_id: noteId,
      speaker,
      ...(name ? { name } : {}),
      ...(to ? { profile_id: await profileIdOf(api, to, 'voices remember') } : {}),
    };
    const response = await api.request('POST', PROFILES, { body, what: 'voices remember' });
    printJson(response.body);
    const profile = /** @type {{ name: string }} */ (response.body);
    info(to ? `Taught ${profile.name}'s profile this voice.` : `Kept ${profile.name}'s voice.`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const voicesRename = {
  name: 'voices rename',
  summary: 'Rename a voice profile (what it names speakers from now on)',
  operation: 'updateVoiceProfile',
  args: ['<profile>', '<name>'],
  options: {},
  examples: ['notes voices rename Dana "Dana Reyes"'],
  async run({ positionals, client }) {
    const api = client();
    const profileId = await profileIdOf(api, positionals[0], 'voices rename');
    const name = positionals[1];
    if (!name?.trim()) throw new UsageError('give the new name', 'voices rename');
    const { body } = await api.request('PATCH', `${PROFILES}/${profileId}`, {
      body: { name },
      what: 'voices rename',
    });
    printJson(body);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const voicesDelete = {
  name: 'voices delete',
  summary: 'Delete a voice profile for good: new transcripts stop naming that voice',
  operation: 'deleteVoiceProfile',
  args: ['<profile>'],
  required: '--yes',
  options: { yes: { type: 'boolean', description: 'Required: the profile is deleted for good' } },
  details: 'Names it already gave in notes stay. Prints nothing on stdout (HTTP 204).',
  examples: ['notes voices delete Dana --yes'],
  async run({ positionals, values, client }) {
    if (values.yes !== true)
      throw new UsageError('deleting a voice profile cannot be undone: add --yes', 'voices delete');
    const api = client();
    const profileId = await profileIdOf(api, positionals[0], 'voices delete');
    await api.request('DELETE', `${PROFILES}/${profileId}`, { what: 'voices delete' });
    info(`Deleted voice profile ${profileId}.`);
  },
};

/**
 * `voices confirm` and `voices reject`: a person's word on a known voice the service named.
 * @param {'confirm' | 'reject'} decision
 * @returns {import('../types.mjs').CommandSpec}
 */
function reviewCommand(decision) {
  const name = `voices ${decision}`;
  return {
    name,
    summary:
      decision === 'confirm'
        ? 'Confirm a speaker named after a known voice (the profile learns this voice too)'
        : 'Reject a speaker named after a known voice (the name it gave goes)',
    operation: 'reviewVoiceMatch',
    args: ['<note_id>', '<speaker>'],
    options: {},
    details: "<speaker> is the label or the name; a note's matches are its voice_matches (notes notes get).",
    examples: [`notes voices ${decision} ${EXAMPLE_NOTE} Dana`],
    async run({ positionals, client }) {
      const noteId = noteIdArg(positionals[0], name);
      const speaker = positionals[1];
      if (!speaker?.trim()) throw new UsageError('give the speaker: a label or its name', name);
      const { body } = await client().request(
        'POST',
        `/v1/notes/${noteId}/voice-matches/${encodeURIComponent(speaker)}`,
        { body: { decision }, what: name },
      );
      printJson(body);
    },
  };
}

/** @type {import('../types.mjs').GroupSpec} */
export const voicesGroup = {
  name: 'voices',
  summary: 'Voices known across notes (opt-in): list, on, off, remember, rename, delete, confirm, reject.',
  commands: [
    voicesList,
    switchCommand(true),
    switchCommand(false),
    voicesRemember,
    voicesRename,
    voicesDelete,
    reviewCommand('confirm'),
    reviewCommand('reject'),
  ],
};
