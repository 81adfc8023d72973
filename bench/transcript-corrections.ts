/**
 * The CPU work of a transcript correction (src/domain/transcript-edits.ts, transcript-words.ts) on a
 * two-hour transcript: the word alignment that keeps timings, and rebuilding full_text and
 * timestamped_full_text from the segments. Next to it, in the same run, the baseline every request
 * pays anyway: JSON.parse + JSON.stringify of the stored transcript. Also the stored size with and
 * without word timings. `npm run bench -- corrections`, or `npx tsx bench/transcript-corrections.ts`.
 */
import { performance } from 'node:perf_hooks';
import { buildTranscription, withSegments } from '../src/domain/transcript.ts';
import { applyEdits, type TranscriptEdit } from '../src/domain/transcript-edits.ts';
import type { RecognizedWord } from '../src/ports/speech-to-text.ts';

const HOURS = 2;
const RUNS = 200;
const VOCABULARY = 'we agreed to ship the release on friday after the review with the team'.split(' ');

export interface CorrectionsBench {
  words: number;
  segments: number;
  stored_bytes_with_words: number;
  stored_bytes_without_words: number;
  /** Milliseconds, p50 and p95 over RUNS runs each. */
  cases: { name: string; p50_ms: number; p95_ms: number }[];
}

/** Two speakers alternating, 2.5 words a second, a pause every 12 words: segments as the local engine makes them. */
function twoHourWords(): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  let at = 0;
  for (let i = 0; at < HOURS * 3_600_000; i++) {
    words.push({
      text: VOCABULARY[i % VOCABULARY.length] as string,
      start_ms: at,
      end_ms: at + 300,
      speaker: Math.floor(i / 36) % 2 === 0 ? 'Speaker 1' : 'Speaker 2',
    });
    at += i % 12 === 11 ? 1_200 : 400;
  }
  return words;
}

function percentile(sorted: number[], p: number): number {
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(3));
}

function time(name: string, work: () => unknown): { name: string; p50_ms: number; p95_ms: number } {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { name, p50_ms: percentile(samples, 0.5), p95_ms: percentile(samples, 0.95) };
}

export function correctionsBench(): CorrectionsBench {
  const transcript = buildTranscription(twoHourWords(), {
    duration_ms: HOURS * 3_600_000,
    engine: 'bench',
    language: 'en-US',
  });
  const segments = transcript.conversation_segments;
  const middle = Math.floor(segments.length / 2);
  const text = (segments[middle]?.text ?? '').replace('ship', 'shipped it');
  const stored = JSON.stringify(transcript);
  const withoutWords = JSON.stringify({
    ...transcript,
    conversation_segments: segments.map(({ words: _words, ...segment }) => segment),
  });
  // The worst case the limits allow: 5,000 characters (about 900 words) replacing a merged segment of
  // as many words, every word compared with every other.
  const long = applyEdits(
    segments,
    Array.from({ length: 40 }, (): TranscriptEdit => ({ op: 'merge', segment: 0 })),
    (speaker) => speaker,
  );
  const longText = (long[0]?.text ?? '').slice(0, 5_000);
  const edit = (edits: TranscriptEdit[], from = segments) =>
    withSegments(
      transcript,
      applyEdits(from, edits, (speaker) => speaker),
    );
  return {
    words: segments.reduce((sum, segment) => sum + (segment.words?.length ?? 0), 0),
    segments: segments.length,
    stored_bytes_with_words: Buffer.byteLength(stored),
    stored_bytes_without_words: Buffer.byteLength(withoutWords),
    cases: [
      time('baseline: JSON.parse + JSON.stringify of the stored transcript', () =>
        JSON.stringify(JSON.parse(stored)),
      ),
      time('replace_text in one segment (word alignment) + rebuild', () =>
        edit([{ op: 'replace_text', segment: middle, text }]),
      ),
      time('split + merge + set_speaker + rebuild', () =>
        edit([
          { op: 'split', segment: middle, at_word: 3 },
          { op: 'merge', segment: middle },
          { op: 'set_speaker', segment: middle, speaker: 'Speaker 2' },
        ]),
      ),
      time('replace_text of 5,000 characters over a merged segment (worst case)', () =>
        edit([{ op: 'replace_text', segment: 0, text: longText.replaceAll('ship', 'sail') }], long),
      ),
    ],
  };
}

export function correctionsTable(result: CorrectionsBench): string {
  const lines = [
    `Two-hour transcript: ${result.segments} segments, ${result.words} words; stored ${(result.stored_bytes_with_words / 1024).toFixed(0)} KiB with word timings, ${(result.stored_bytes_without_words / 1024).toFixed(0)} KiB without`,
    '| case | p50 ms | p95 ms |',
    '|---|---|---|',
    ...result.cases.map((row) => `| ${row.name} | ${row.p50_ms} | ${row.p95_ms} |`),
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(correctionsTable(correctionsBench()));
