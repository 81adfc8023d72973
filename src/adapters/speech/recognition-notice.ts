import { meanConfidence } from '../../domain/transcript-confidence.ts';
import type { RecognitionNotice, RecognizedWord } from '../../ports/speech-to-text.ts';
import type { SpeechPresence } from './speech-presence.ts';

/**
 * What the local engine says about a recording as a whole, from the speech-presence check on the
 * audio and pocketsphinx's word posteriors (calibration: docs/transcripts.md, "Confidence and speech
 * presence"; `npm run bench -- confidence`).
 */

/**
 * Below this duration-weighted mean posterior, pocketsphinx is not following the speech. On the
 * tuning set, English speech (LibriVox readers, flite slt) scored 0.57 to 0.71 and speech in other
 * languages (espeak-ng de and it, festival it) 0.22 to 0.48; 0.5 lies between, nearer the English.
 */
export const LOW_CONFIDENCE_BELOW = 0.5;
/** A handful of words says too little about a recording: a short clip is never flagged. */
export const LOW_CONFIDENCE_MIN_WORDS = 8;

/**
 * Where the speech check hears only a little speech (`sparse`: short phrases between pauses, or
 * rhythmic music), the recogniser's confidence decides: English it follows is speech, anything else
 * is not. On the tuning set sparse real English scored 0.66 to 0.73 and sparse music 0.24 to 0.41.
 */
export const SPARSE_SPEECH_FROM = 0.55;

export function recordingNotice(
  words: readonly RecognizedWord[],
  presence: SpeechPresence,
): RecognitionNotice | undefined {
  if (words.length === 0) return 'no_speech';
  // Scored as segments are: the duration-weighted mean of the words' posteriors.
  const confidence = meanConfidence(words);
  // Words the recogniser found in audio without speech are invented: none are kept.
  if (presence.verdict === 'absent') return 'no_speech';
  if (presence.verdict === 'sparse' && (confidence === null || confidence < SPARSE_SPEECH_FROM))
    return 'no_speech';
  if (words.length < LOW_CONFIDENCE_MIN_WORDS) return undefined;
  return confidence !== null && confidence < LOW_CONFIDENCE_BELOW ? 'low_confidence' : undefined;
}
