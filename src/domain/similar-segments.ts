import type { SpeakerVoice } from '../ports/speech-to-text.ts';
import type { DomainDeps } from './deps.ts';
import { ConflictError, UnprocessableError } from './errors.ts';
import { labelForSpeaker } from './speaker-labels.ts';
import type { ConversationSegment } from './transcript.ts';
import { segmentAt } from './transcript-edits.ts';
import { transcriptionView } from './transcript-exports.ts';
import { transcriptEntityTag } from './transcript-tags.ts';
import { readVoicedTranscript } from './transcript-voices.ts';
import { add, dot, sum, unit, voiceOf, weightedSum } from './voice-vectors.ts';

/**
 * "Apply to similar segments": after a person gives segments to a speaker, the other segments whose
 * voice is closer to those than to the rest of their own speaker's. Read only: the client shows how
 * many and which, then gives them to the speaker with one `set_speakers` correction (one undo).
 *
 * Voices are the diarizer's, kept beside the transcript (`voices.json`: each speaker turn's unit
 * vector, from the neural voice model or the voice statistics); a segment's voice is the mean of the
 * turns it overlaps, weighted by the overlap. Times, not segment numbers, tie the two together, so
 * corrections (splits, merges) do not lose them.
 */
export interface SimilarSegmentsRequest {
  /** A label or a name given with updateNote. */
  speaker: string;
  /** Segments of the current revision that are this speaker's; default: all segments labelled so. */
  examples?: number[] | undefined;
}

export interface SimilarSegment {
  segment: number;
  start_ms: number;
  end_ms: number;
  /** Its speaker now: the label. */
  speaker_label: string;
  /** Cosine similarity of its voice to the examples' (-1..1, 3 decimals). */
  similarity: number;
}

export interface SimilarSegmentsResult {
  /** The speaker the segments would be given to: its label. */
  speaker_label: string;
  examples: number[];
  segments: SimilarSegment[];
  /** The transcript revision the segment numbers refer to: If-Match for the set_speakers correction. */
  etag: string;
}

const NO_VOICES =
  'This transcript keeps no voices to compare (it was made before voices were kept, or its engine labels speakers itself): transcribe it again to use this';

export async function findSimilarSegments(
  deps: DomainDeps,
  accountId: string,
  noteId: string,
  request: SimilarSegmentsRequest,
): Promise<SimilarSegmentsResult> {
  const { note, transcription: current, voices } = await readVoicedTranscript(deps, accountId, noteId);
  if (voices.length === 0) throw new ConflictError(NO_VOICES);
  const segments = current.conversation_segments;
  const present = new Set(segments.map((segment) => segment.speaker));
  const label = labelForSpeaker(request.speaker.trim(), note.speaker_names, present, 'speaker');
  const examples = request.examples ?? segments.flatMap((s, i) => (s.speaker === label ? [i] : []));
  for (const index of examples) {
    if (segmentAt(segments, index, 'examples').speaker !== label) {
      throw new UnprocessableError(
        `examples: segment ${index} is not ${request.speaker}'s: give it to them first (set_speaker), then ask for similar ones`,
      );
    }
  }
  if (examples.length === 0)
    throw new UnprocessableError(`speaker: no segment is spoken by "${request.speaker}"`);
  const view = transcriptionView(current, note.speaker_names);
  return {
    speaker_label: label,
    examples,
    segments: similarTo(segments, voices, label, new Set(examples)),
    etag: transcriptEntityTag(view),
  };
}

/** Pure: the segments (not the speaker's) closer in voice to `examples` than to their own speaker. */
export function similarTo(
  segments: readonly ConversationSegment[],
  voices: readonly SpeakerVoice[],
  label: string,
  examples: ReadonlySet<number>,
): SimilarSegment[] {
  const centredVoices = centred(voices);
  const vectors = segments.map((segment) => voiceOf(segment, centredVoices));
  const target = unit(sum([...examples].flatMap((i) => (vectors[i] ? [vectors[i]] : []))));
  if (!target) return [];
  const bySpeaker = new Map<string, number[]>();
  segments.forEach((segment, i) => {
    const vector = vectors[i];
    if (!vector) return;
    const total = bySpeaker.get(segment.speaker);
    bySpeaker.set(segment.speaker, total ? add(total, vector, 1) : [...vector]);
  });
  const found: SimilarSegment[] = [];
  segments.forEach((segment, i) => {
    const vector = vectors[i];
    if (!vector || segment.speaker === label) return;
    const similarity = dot(vector, target);
    // Its own speaker without it: a speaker heard only here has nothing to hold it.
    const rest = unit(add(bySpeaker.get(segment.speaker) ?? vector, vector, -1));
    const own = rest ? dot(vector, rest) : Number.NEGATIVE_INFINITY;
    if (similarity > own) {
      found.push({
        segment: i,
        start_ms: segment.start_ms,
        end_ms: segment.end_ms,
        speaker_label: segment.speaker,
        similarity: Math.round(similarity * 1000) / 1000,
      });
    }
  });
  return found;
}

/**
 * The voices with the recording's mean voice (weighted by duration) taken away: what every stretch
 * shares (the channel, the room, and for voice statistics a pitch far from zero that would point every
 * vector one way) then counts for nothing when voices are compared by cosine.
 */
function centred(voices: readonly SpeakerVoice[]): SpeakerVoice[] {
  const total = weightedSum(voices, (voice) => voice.end_ms - voice.start_ms);
  if (!total) return [...voices];
  const mean = total.vector.map((value) => value / total.weight);
  return voices.map((voice) => ({ ...voice, vector: add(voice.vector, mean, -1) }));
}
