/**
 * Public API of the local speaker diarization. Overlapping speech is not detected: the pipeline gives
 * each moment to one speaker, so `has_overlap` stays false for the local engine (see diarize.ts).
 */
export { assignSpeakers } from './assign.ts';
export { Diarizer } from './diarize.ts';
export { diarizeFile, diarizePcmFile } from './diarize-file.ts';
export type { DiarizeOptions, SpeakerLabel, SpeakerTurn } from './types.ts';
