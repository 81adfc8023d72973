import { inverseDocumentFrequency, termWeight } from './bm25.ts';
import { termFrequencies } from './search-terms.ts';
import type { Transcription } from './transcript.ts';

/** A citable stretch of a transcript: one or more consecutive segments. */
export interface Passage {
  start_ms: number;
  end_ms: number;
  text: string;
}

/**
 * Who said what in a passage: one turn per segment, the speaker as the transcript shows it, when it
 * starts, and when each of its words starts (one per whitespace-separated token of `text`, when the
 * recogniser gave word timings), so a sentence inside it can be found in the recording.
 */
export interface Turn {
  speaker: string;
  text: string;
  start_ms: number;
  word_starts?: number[];
}

function turnOf(segment: Transcription['conversation_segments'][number]): Turn {
  const turn: Turn = { speaker: segment.speaker, text: segment.text, start_ms: segment.start_ms };
  const tokens = segment.text.split(/\s+/).filter(Boolean).length;
  if (segment.words && segment.words.length === tokens)
    turn.word_starts = segment.words.map((word) => word.start_ms);
  return turn;
}

/** A passage of a transcript, with its turns. */
export interface TranscriptPassage extends Passage {
  turns: Turn[];
}

/** Enough words to carry a thought, few enough to quote. */
const PASSAGE_WORDS = 60;

/** Consecutive segments joined until a passage has about 60 words; segments are never split. */
export function passagesOf(transcription: Transcription): TranscriptPassage[] {
  const passages: TranscriptPassage[] = [];
  let open: TranscriptPassage | null = null;
  let words = 0;
  for (const segment of transcription.conversation_segments) {
    const count = segment.text.split(/\s+/).filter(Boolean).length;
    if (open && words + count <= PASSAGE_WORDS) {
      open.end_ms = Math.max(open.end_ms, segment.end_ms);
      open.text = `${open.text} ${segment.text}`;
      open.turns.push(turnOf(segment));
      words += count;
      continue;
    }
    if (open) passages.push(open);
    open = {
      start_ms: segment.start_ms,
      end_ms: segment.end_ms,
      text: segment.text,
      turns: [turnOf(segment)],
    };
    words = count;
  }
  if (open) passages.push(open);
  return passages;
}

/**
 * Scores passages against the question's terms with BM25. `idf` comes from the whole index (how rare
 * a term is across the account's notes); passage lengths are compared among the given passages.
 */
export function scorePassages<T extends Passage>(
  passages: T[],
  questionTerms: string[],
  idf: ReadonlyMap<string, number>,
): { passage: T; score: number }[] {
  const terms = [...new Set(questionTerms)];
  const counted = passages.map((passage) => {
    const { terms: frequencies, length } = termFrequencies(passage.text);
    return { passage, frequencies, length };
  });
  const averageLength = counted.reduce((sum, p) => sum + p.length, 0) / Math.max(counted.length, 1);
  return counted.map(({ passage, frequencies, length }) => ({
    passage,
    score: terms.reduce(
      (sum, term) =>
        sum +
        (idf.get(term) ?? inverseDocumentFrequency(1, 1)) *
          termWeight(frequencies.get(term) ?? 0, length, averageLength),
      0,
    ),
  }));
}
