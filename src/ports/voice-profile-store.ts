import type { VoiceProfile, VoiceProfileSettings } from '../domain/voice-profile.ts';

/**
 * Voice profiles and the account's choice to keep them. Every method takes the account ID: an
 * implementation must make it impossible to read or change another account's profiles.
 */
export interface VoiceProfileStore {
  /** `{ enabled: false }` for an account that never chose. */
  getSettings(accountId: string): Promise<VoiceProfileSettings>;
  putSettings(accountId: string, settings: VoiceProfileSettings): Promise<void>;
  /** Every profile of the account (at most VOICE_PROFILE_LIMITS.perAccount), in no particular order. */
  listProfiles(accountId: string): Promise<VoiceProfile[]>;
  getProfile(accountId: string, profileId: string): Promise<VoiceProfile | null>;
  /** Writes a new profile; throws ConflictError if the ID is taken. */
  createProfile(profile: VoiceProfile): Promise<void>;
  /**
   * Replaces the profile only if it is still as `expected` (same updated_at); false when it changed or
   * was deleted meanwhile.
   */
  replaceProfile(expected: VoiceProfile, next: VoiceProfile): Promise<boolean>;
  /** Nothing happens when there is none. */
  deleteProfile(accountId: string, profileId: string): Promise<void>;
}
