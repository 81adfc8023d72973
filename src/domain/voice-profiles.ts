import { randomBytes } from 'node:crypto';
import type { SpeakerVoice } from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, NotFoundError, UnprocessableError } from './errors.ts';
import type { Note, NoteChanges } from './note.ts';
import { getNote } from './notes.ts';
import { labelForSpeaker } from './speaker-labels.ts';
import type { Transcription } from './transcript.ts';
import { readVoicedTranscript } from './transcript-voices.ts';
import type { NoteView } from './views.ts';
import { withoutMatches } from './voice-matches.ts';
import {
  VOICE_PROFILE_LIMITS,
  type VoiceMatch,
  type VoiceProfile,
  type VoiceProfileView,
  voiceProfileView,
} from './voice-profile.ts';
import { add, dot, type HeardVoice, speakerVoices, stored, unit } from './voice-vectors.ts';

/**
 * Voices known across notes: the account's profiles (listed, made from a named speaker, taught more,
 * renamed, deleted), the choice to keep them, and the naming of known voices in new transcripts.
 * See voice-profile.ts for what a profile is and why it is opt-in.
 */
export interface VoiceProfilesView {
  enabled: boolean;
  profiles: VoiceProfileView[];
}

const PROFILES_OFF =
  "Voice profiles are off for this account: nothing about voices is kept until you turn them on (updateVoiceProfileSettings with enabled: true, or the web app's Account page)";

/** Only a voice model's embeddings describe a voice the same way in two recordings. */
const VOICE_MODEL_PREFIX = 'voice-model:';

export async function listVoiceProfiles(deps: DomainDeps, accountId: string): Promise<VoiceProfilesView> {
  const [settings, profiles] = await Promise.all([
    deps.voiceProfiles.getSettings(accountId),
    deps.voiceProfiles.listProfiles(accountId),
  ]);
  return {
    enabled: settings.enabled,
    profiles: profiles
      .sort((a, b) => a.name.localeCompare(b.name) || a.created_at - b.created_at)
      .map(voiceProfileView),
  };
}

/**
 * Turns voice profiles on or off. Off deletes every profile first (then records the choice, so an
 * interrupted call leaves profiles on, to be turned off again, never kept while said to be off).
 * Names already given to speakers in notes stay: they are names, not voices.
 */
export async function setVoiceProfilesEnabled(
  deps: DomainDeps,
  accountId: string,
  enabled: boolean,
): Promise<VoiceProfilesView> {
  if (!enabled) {
    for (const profile of await deps.voiceProfiles.listProfiles(accountId))
      await deps.voiceProfiles.deleteProfile(accountId, profile.profile_id);
  }
  await deps.voiceProfiles.putSettings(accountId, { enabled, changed_at: deps.now() });
  return listVoiceProfiles(deps, accountId);
}

export interface CreateVoiceProfileRequest {
  note_id: string;
  /** A label or a name given with updateNote. */
  speaker: string;
  /** The profile's name; default: the speaker's name in the note. */
  name?: string | undefined;
  /** Teach this existing profile instead of making a new one. */
  profile_id?: string | undefined;
}

/**
 * Keeps the voice of one of a note's speakers (as it stands after corrections) as a new profile, or
 * teaches an existing one more of it; the note's speaker is then marked as that known voice.
 */
export async function createVoiceProfile(
  deps: DomainDeps,
  accountId: string,
  request: CreateVoiceProfileRequest,
): Promise<{ profile: VoiceProfileView; created: boolean }> {
  await requireEnabled(deps, accountId);
  const heard = await heardSpeaker(deps, accountId, request.note_id, request.speaker);
  const profile = request.profile_id
    ? await teach(deps, await requireProfile(deps, accountId, request.profile_id), heard)
    : await newProfile(deps, accountId, heard, request.name);
  await markKnown(deps, heard.note, heard.label, profile, dot(profile.vector, heard.voice.vector));
  return { profile: voiceProfileView(profile), created: !request.profile_id };
}

export async function renameVoiceProfile(
  deps: DomainDeps,
  accountId: string,
  profileId: string,
  name: string,
): Promise<VoiceProfileView> {
  return voiceProfileView(
    await changeProfile(deps, await requireProfile(deps, accountId, profileId), () => ({ name })),
  );
}

/** New transcripts stop naming the voice at once; names it already gave in notes stay. */
export async function deleteVoiceProfile(
  deps: DomainDeps,
  accountId: string,
  profileId: string,
): Promise<void> {
  await requireProfile(deps, accountId, profileId);
  await deps.voiceProfiles.deleteProfile(accountId, profileId);
}

export type VoiceMatchDecision = 'confirm' | 'reject';

/**
 * A person's word on a known voice the service named: confirmed, the name stays and the profile
 * learns this speaker's voice too (once: only the confirmation that turns the match from suggested
 * to confirmed teaches); rejected, the match and the name it gave go.
 */
export async function reviewVoiceMatch(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  speaker: string,
  decision: VoiceMatchDecision,
): Promise<NoteView> {
  let confirmedNow: VoiceMatch | null = null;
  await changeNote(deps, accountId, noteId, (note) => {
    const label = matchedLabel(note, speaker.trim());
    const match = note.voice_matches?.[label] as VoiceMatch;
    confirmedNow = null;
    if (decision === 'reject') return withoutMatches(note, [label], { names: 'given' });
    if (match.status === 'confirmed') return null;
    confirmedNow = match;
    return { voice_matches: { [label]: { ...match, status: 'confirmed' } } };
  });
  if (confirmedNow) await learnConfirmed(deps, accountId, noteId, speaker.trim(), confirmedNow);
  return getNote(deps, accountId, noteId);
}

/**
 * The profile of a match just confirmed learns the speaker's voice, when it still can: a profile
 * deleted since, profiles turned off, or a speaker too briefly heard (named from 1.5 s of speech,
 * taught from 3 s) leaves the confirmation standing and teaches nothing.
 */
async function learnConfirmed(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  speaker: string,
  match: VoiceMatch,
): Promise<void> {
  const profile = await deps.voiceProfiles.getProfile(accountId, match.profile_id);
  if (!profile || !(await deps.voiceProfiles.getSettings(accountId)).enabled) return;
  try {
    const heard = await heardSpeaker(deps, accountId, noteId, speaker);
    if (heard.voices_by === profile.voices_by) await teach(deps, profile, heard);
  } catch (error) {
    if (
      !(
        error instanceof UnprocessableError ||
        error instanceof ConflictError ||
        error instanceof NotFoundError
      )
    )
      throw error;
  }
}

/**
 * After a transcript is made: the matches of the note's previous transcript end (its labels named
 * other turns; a suggested name goes with its match), then each speaker whose voice is close enough
 * to a profile's is named after it, as a suggestion. Each profile names at most one speaker and each
 * speaker takes at most one profile, the closest pairs first; a profile whose name another speaker of
 * the note already has names no one. Nothing is named while profiles are off.
 */
export async function nameKnownVoices(
  deps: DomainDeps,
  read: Note,
  transcription: Transcription,
  voices: readonly SpeakerVoice[],
): Promise<void> {
  const accountId = read.account_id;
  const comparable = voices.length > 0 && transcription.speakers_by?.startsWith(VOICE_MODEL_PREFIX);
  const enabled = comparable && (await deps.voiceProfiles.getSettings(accountId)).enabled;
  const hadMatches = Object.keys(read.voice_matches ?? {}).length > 0;
  if (!enabled && !hadMatches) return;
  const profiles = (enabled ? await deps.voiceProfiles.listProfiles(accountId) : []).filter(
    (profile) => profile.voices_by === transcription.speakers_by,
  );
  const heardAll = [...speakerVoices(transcription.conversation_segments, voices)];
  // Worked out on the note as it is when written: names given during the recognition are the person's.
  await changeNote(deps, accountId, read.note_id, (note) => {
    const ended = withoutMatches(note, Object.keys(note.voice_matches ?? {}));
    const kept = Object.entries(note.speaker_names ?? {}).filter(
      ([label]) => ended.speaker_names?.[label] !== null,
    );
    const named = new Set(kept.map(([label]) => label));
    const takenNames = new Set(kept.map(([, name]) => name.toLowerCase()));
    const matches = knownVoices(
      heardAll.filter(([label]) => !named.has(label)),
      profiles.filter((profile) => !takenNames.has(profile.name.toLowerCase())),
    );
    const names: Record<string, string | null> = { ...ended.speaker_names };
    const found: Record<string, VoiceMatch | null> = { ...ended.voice_matches };
    for (const [label, match] of matches) {
      names[label] = match.name;
      found[label] = match;
    }
    return Object.keys(found).length > 0 ? { speaker_names: names, voice_matches: found } : null;
  });
}

/** Pure: the closest pairs of speaker and profile at or above the threshold, each used once. */
export function knownVoices(
  heard: readonly [string, HeardVoice][],
  profiles: readonly VoiceProfile[],
): Map<string, VoiceMatch> {
  const pairs = heard
    .filter(([, voice]) => voice.speech_ms >= VOICE_PROFILE_LIMITS.minMatchSpeechMs)
    .flatMap(([label, voice]) =>
      profiles.map((profile) => ({ label, profile, similarity: dot(voice.vector, profile.vector) })),
    )
    .filter((pair) => pair.similarity >= VOICE_PROFILE_LIMITS.matchThreshold)
    .sort((a, b) => b.similarity - a.similarity);
  const matches = new Map<string, VoiceMatch>();
  const used = new Set<string>();
  for (const { label, profile, similarity } of pairs) {
    if (matches.has(label) || used.has(profile.profile_id)) continue;
    used.add(profile.profile_id);
    matches.set(label, {
      profile_id: profile.profile_id,
      name: profile.name,
      similarity: shownSimilarity(similarity),
      status: 'suggested',
    });
  }
  return matches;
}

interface HeardSpeaker {
  note: Note;
  label: string;
  voice: HeardVoice;
  voices_by: string;
}

/** The voice of one speaker of a note's current transcript, refused when it cannot teach a profile. */
async function heardSpeaker(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  speaker: string,
): Promise<HeardSpeaker> {
  const { note, transcription: current, voices } = await readVoicedTranscript(deps, accountId, noteId);
  const voicesBy = current.speakers_by ?? '';
  if (!voicesBy.startsWith(VOICE_MODEL_PREFIX) || voices.length === 0) {
    throw new ConflictError(
      `This transcript's speakers were told apart by ${voicesBy || 'its speech engine'}, not by a voice model: only a voice model's embeddings describe a voice the same way in two recordings. Run the service with a voice model (NOTES_VOICE_MODEL) and transcribe the note again`,
    );
  }
  const segments = current.conversation_segments;
  const label = labelForSpeaker(
    speaker.trim(),
    note.speaker_names,
    new Set(segments.map((s) => s.speaker)),
    'speaker',
  );
  const voice = speakerVoices(segments, voices).get(label);
  if (!voice) throw new UnprocessableError(`speaker: no segment is spoken by "${speaker}"`);
  if (voice.speech_ms < VOICE_PROFILE_LIMITS.minSpeechMs) {
    throw new UnprocessableError(
      `speaker: "${speaker}" speaks for ${(voice.speech_ms / 1000).toFixed(1)} s here; a voice profile needs at least ${VOICE_PROFILE_LIMITS.minSpeechMs / 1000} s of their speech`,
    );
  }
  return { note, label, voice, voices_by: voicesBy };
}

async function newProfile(
  deps: DomainDeps,
  accountId: string,
  heard: HeardSpeaker,
  requestedName: string | undefined,
): Promise<VoiceProfile> {
  const name = requestedName?.trim() || heard.note.speaker_names?.[heard.label];
  if (!name) {
    throw new UnprocessableError(
      `name: ${heard.label} has no name in this note: give one (name), or name the speaker first (updateNote speaker_names)`,
    );
  }
  if ((await deps.voiceProfiles.listProfiles(accountId)).length >= VOICE_PROFILE_LIMITS.perAccount) {
    throw new ConflictError(
      `An account keeps at most ${VOICE_PROFILE_LIMITS.perAccount} voice profiles: delete one first (deleteVoiceProfile), or teach an existing one (profile_id)`,
    );
  }
  const now = deps.now();
  const profile: VoiceProfile = {
    account_id: accountId,
    profile_id: `vp_${randomBytes(8).toString('hex')}`,
    name,
    voices_by: heard.voices_by,
    vector: stored(heard.voice.vector),
    speech_ms: Math.round(heard.voice.speech_ms),
    taught: 1,
    created_at: now,
    updated_at: now,
  };
  await deps.voiceProfiles.createProfile(profile);
  // Turned off while this was under way: the sweep that deleted the profiles may have missed this
  // one, and nothing of a voice is kept while profiles are off.
  if (!(await deps.voiceProfiles.getSettings(accountId)).enabled) {
    await deps.voiceProfiles.deleteProfile(accountId, profile.profile_id);
    throw new ConflictError(PROFILES_OFF);
  }
  return profile;
}

/** The profile with the speaker's voice added, weighted by how much speech each side has heard. */
async function teach(deps: DomainDeps, found: VoiceProfile, heard: HeardSpeaker): Promise<VoiceProfile> {
  return changeProfile(deps, found, (profile) => {
    if (profile.voices_by !== heard.voices_by) {
      throw new ConflictError(
        `The profile "${profile.name}" was made by ${profile.voices_by} and this transcript by ${heard.voices_by}: their voices cannot be compared. Make a new profile from this note`,
      );
    }
    const weight = heard.voice.speech_ms;
    const vector = unit(
      add(
        profile.vector.map((value) => value * profile.speech_ms),
        heard.voice.vector,
        weight,
      ),
    );
    return {
      vector: stored(vector ?? profile.vector),
      speech_ms: Math.round(profile.speech_ms + weight),
      taught: profile.taught + 1,
    };
  });
}

/**
 * The profile with what `change` works out from it as it is now, written only if nobody changed it
 * since it was read (read again and worked out again otherwise); NotFoundError once it is gone.
 */
async function changeProfile(
  deps: DomainDeps,
  found: VoiceProfile,
  change: (profile: VoiceProfile) => Partial<VoiceProfile>,
): Promise<VoiceProfile> {
  let profile = found;
  for (;;) {
    const next: VoiceProfile = {
      ...profile,
      ...change(profile),
      updated_at: Math.max(deps.now(), profile.updated_at + 1),
    };
    if (await deps.voiceProfiles.replaceProfile(profile, next)) return next;
    profile = await requireProfile(deps, profile.account_id, profile.profile_id);
  }
}

/**
 * The note's speaker marked as the profile's voice, confirmed (a person said so), and named after it
 * unless the person named the speaker otherwise (a name a suggestion gave is replaced).
 */
async function markKnown(
  deps: DomainDeps,
  note: Note,
  label: string,
  profile: VoiceProfile,
  similarity: number,
): Promise<void> {
  const match: VoiceMatch = {
    profile_id: profile.profile_id,
    name: profile.name,
    similarity: shownSimilarity(similarity),
    status: 'confirmed',
  };
  await changeNote(deps, note.account_id, note.note_id, (current) => {
    const name = current.speaker_names?.[label];
    const earlier = current.voice_matches?.[label];
    const suggestedName = earlier?.status === 'suggested' && earlier.name === name;
    return {
      voice_matches: { [label]: match },
      ...(!name || suggestedName ? { speaker_names: { [label]: profile.name } } : {}),
    };
  });
}

/**
 * Applies the change `change` works out from the note as it is now, only if the note has not changed
 * since it was read (read again and worked out again otherwise); `null` from `change`: nothing to do.
 */
async function changeNote(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  change: (note: Note) => NoteChanges | null,
): Promise<void> {
  for (;;) {
    const note = await deps.notes.getNote(accountId, noteId);
    if (!note) throw new NotFoundError(`No note with ID ${noteId}`);
    const changes = change(note);
    if (!changes) return;
    if (await deps.notes.updateNoteIf(note, changes, deps.now())) return;
  }
}

function matchedLabel(note: Note, speaker: string): string {
  const matches = note.voice_matches ?? {};
  if (matches[speaker]) return speaker;
  const byName = Object.keys(matches).filter((label) => note.speaker_names?.[label] === speaker);
  if (byName.length === 1) return byName[0] as string;
  throw new NotFoundError(
    `No known voice was matched to "${speaker}" in this note: give the label (such as "Speaker 2") or the name of a speaker in voice_matches`,
  );
}

async function requireEnabled(deps: DomainDeps, accountId: string): Promise<void> {
  if (!(await deps.voiceProfiles.getSettings(accountId)).enabled) throw new ConflictError(PROFILES_OFF);
}

async function requireProfile(deps: DomainDeps, accountId: string, profileId: string): Promise<VoiceProfile> {
  const profile = await deps.voiceProfiles.getProfile(accountId, profileId);
  if (!profile) throw new NotFoundError(`No voice profile with ID ${profileId}`);
  return profile;
}

/** A cosine as a match shows it: 3 decimals, at most 1 (rounding of unit vectors can pass it). */
function shownSimilarity(cosine: number): number {
  return Math.min(1, Math.round(cosine * 1000) / 1000);
}
