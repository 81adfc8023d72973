/**
 * Voices known across notes (opt-in per account). A voice profile is what the service keeps of one
 * named person's voice: the mean of the voice vectors of the speakers it was taught from (a voice
 * model's embeddings: numbers, never audio), so later transcripts of the same account can name them.
 * Voice prints are biometric data: nothing is kept until the account turns profiles on, turning them
 * off deletes every profile, and the vectors are never returned by any operation.
 */
export interface VoiceProfile {
  account_id: string;
  profile_id: string;
  name: string;
  /**
   * What made the vectors (a transcript's `speakers_by`, e.g. `voice-model:wespeaker-resnet34-lm`):
   * vectors of another model live in another space, so only transcripts made the same way are compared.
   */
  voices_by: string;
  /** Unit-length mean voice, 4 decimals. */
  vector: number[];
  /** How much speech taught it, in ms: the weight of what it knows when more is added. */
  speech_ms: number;
  /** How many speakers of notes taught it (the first, plus each addition or confirmed match). */
  taught: number;
  created_at: number;
  updated_at: number;
}

/** A profile as its owner sees it: never the vector. */
export interface VoiceProfileView {
  profile_id: string;
  name: string;
  voices_by: string;
  speech_seconds: number;
  taught: number;
  created_at: number;
  updated_at: number;
}

export interface VoiceProfileSettings {
  enabled: boolean;
  /** When the account last turned profiles on or off (absent: never). */
  changed_at?: number;
}

/**
 * A note's speaker named after a known voice by the service (suggested) and, once the person says so,
 * confirmed. Kept on the note by speaker label, next to the name it gave (`speaker_names`).
 */
export interface VoiceMatch {
  profile_id: string;
  /** The profile's name when the match was made: the name it gave the speaker. */
  name: string;
  /** Cosine similarity of the speaker's voice to the profile's (0..1, 3 decimals); not a probability. */
  similarity: number;
  status: 'suggested' | 'confirmed';
}

export const VOICE_PROFILE_LIMITS = {
  perAccount: 200,
  nameLength: 100,
  /**
   * The least cosine similarity at which a speaker is named after a profile. Not calibrated here (no
   * model weights on the build machine): sherpa-onnx's speaker-identification examples and their users
   * take 0.5-0.6 for WeSpeaker and 3D-Speaker embeddings; the higher end, because a wrong name is worse
   * than none.
   */
  matchThreshold: 0.6,
  /** Less speech than this says too little about a voice to teach a profile. */
  minSpeechMs: 3_000,
  /** A speaker heard for less than this (one of the diarizer's windows) is not named after a profile. */
  minMatchSpeechMs: 1_500,
} as const;

export function voiceProfileView(profile: VoiceProfile): VoiceProfileView {
  return {
    profile_id: profile.profile_id,
    name: profile.name,
    voices_by: profile.voices_by,
    speech_seconds: Math.round(profile.speech_ms / 100) / 10,
    taught: profile.taught,
    created_at: profile.created_at,
    updated_at: profile.updated_at,
  };
}
