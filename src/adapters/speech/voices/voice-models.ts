import type { FetchableModel } from '../../models/model-fetch.ts';

/**
 * Neural voice-embedding models the diarizer knows by name (`NOTES_VOICE_MODEL`), run through
 * sherpa-onnx: files as sherpa-onnx publishes them in its `speaker-recongition-models` release (the
 * misspelling is the release's tag), each pinned by the SHA-256 of the published file.
 */
export type KnownVoiceModel = FetchableModel;

/** Where sherpa-onnx publishes its voice-embedding models; `NOTES_VOICE_MODEL_URL` names a mirror. */
export const DEFAULT_VOICE_MODEL_BASE_URL =
  'https://github.com/k2-fsa/sherpa-onnx/releases/download/speaker-recongition-models';

export const VOICE_MODELS: readonly KnownVoiceModel[] = [
  {
    name: 'wespeaker-resnet34-lm',
    file: 'wespeaker_en_voxceleb_resnet34_LM.onnx',
    // The published file's hash; the same value is pinned by several unrelated projects.
    sha256: 'e9848563da86f263117134dfd7ad63c92355b37de492b55e325400c9d9c39012',
    approxBytes: 26_530_550,
    kind: 'voice model',
    mirrorSetting: 'NOTES_VOICE_MODEL_URL',
    defaultBaseUrl: DEFAULT_VOICE_MODEL_BASE_URL,
    // Its publisher's accuracy (not measured here) is quoted in docs/transcripts.md.
  },
];

export const DEFAULT_VOICE_MODEL = 'wespeaker-resnet34-lm';

export function knownVoiceModel(name: string): KnownVoiceModel | undefined {
  return VOICE_MODELS.find((known) => known.name === name);
}
