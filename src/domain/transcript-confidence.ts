import type { RecognitionNotice } from '../ports/speech-to-text.ts';
import type { ConversationSegment, TimedWord } from './transcript.ts';

/**
 * How sure the recogniser was, and what a client should be told when it was guessing. Pure: no I/O.
 *
 * A segment's confidence is the duration-weighted mean of its words' confidences: a long word the
 * engine doubted weighs more than a short "a" it was sure of, and a segment's number reads as "the
 * share of its speaking time the engine was sure of". A word without its own confidence counts with
 * the confidence of the stretch it came in (whisper scores segments, not words); a segment none of
 * whose words has either has no confidence (null). The transcript's confidence is the same mean over
 * all its words.
 */

/**
 * Shown with a transcript whose recogniser heard no speech or could not follow it, or that a fallback
 * engine made (`engine_fallback`: the local default could not run Whisper).
 */
export interface TranscriptNotice {
  code: RecognitionNotice | 'engine_fallback';
  /** A short message a client can show as it is; says what to do. */
  detail: string;
}

/** A word the person typed in a correction: confirmed by a person, so the recogniser's doubt is gone. */
export const CONFIRMED_BY_PERSON = 1;

/** A word's weight: its duration, at least 1 ms so that zero-length words still count. */
function weightOf(word: TimedWord): number {
  return Math.max(1, word.end_ms - word.start_ms);
}

function scoreOf(word: TimedWord): number | undefined {
  return word.confidence ?? word.span_confidence;
}

/** Duration-weighted mean confidence of `words`, rounded to 3 decimals; null when none is scored. */
export function meanConfidence(words: readonly TimedWord[]): number | null {
  let weighted = 0;
  let total = 0;
  for (const word of words) {
    const score = scoreOf(word);
    if (score === undefined) continue;
    weighted += score * weightOf(word);
    total += weightOf(word);
  }
  return total > 0 ? roundConfidence(weighted / total) : null;
}

/** The transcript's confidence: the same weighting over every word of every segment. */
export function transcriptConfidence(segments: readonly ConversationSegment[]): number | null {
  return meanConfidence(segments.flatMap((segment) => segment.words ?? []));
}

/** Three decimals are more than any engine's confidence is worth, and keep the JSON short. */
export function roundConfidence(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000;
}

/**
 * The recogniser's engine settings a user cannot change; an operator can, so the message names the
 * configuration (docs/self-hosting.md, "Speech engines").
 */
const OTHER_ENGINES =
  'For other languages or better accuracy an operator can switch engines: NOTES_SPEECH_ENGINE=auto (Whisper, ' +
  'with a multilingual NOTES_WHISPER_MODEL such as small), NOTES_SPEECH_ENGINE=transcribe ' +
  '(Amazon Transcribe) or NOTES_SPEECH_ENGINE=openai with NOTES_OPENAI_BASE_URL set to a whisper-compatible ' +
  'server; then transcribe the note again (deleteTranscription, then submitTranscription).';

export function noticeFor(code: RecognitionNotice, confidence: number | null): TranscriptNotice {
  if (code === 'no_speech') {
    return {
      code,
      detail:
        'No speech was heard in this recording (it sounds like music, tones, noise or silence), so the ' +
        'transcript is empty. If someone does speak in it, check that the right file was uploaded.',
    };
  }
  const share = confidence === null ? '' : ` (confidence ${Math.round(confidence * 100)} %)`;
  return {
    code,
    detail:
      `The recogniser could not follow this recording${share}: most words are guesses. It may be in a ` +
      'language other than English, or too noisy. The local engine recognises English only and keeps the ' +
      `audio on this server. ${OTHER_ENGINES}`,
  };
}
