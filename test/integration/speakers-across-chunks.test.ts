import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChunks } from '../../src/adapters/speech/chunking.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import {
  type ConversationTruth,
  ensureConversations,
  fixtureNamed,
  type ReferenceTurn,
} from '../fixtures/conversations/generate.ts';
import { FFMPEG_QUIET, run } from '../fixtures/fixture-files.ts';
import { type Api, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * A long two-speaker recording is recognised in chunks on several cores; its speakers come from one
 * diarization of the whole file. Over real HTTP, on the runtime as `npm start` runs it with 40 s
 * chunks: a 165 s conversation (the two-voice fixture three times) is cut in four, and every
 * boundary falls inside the conversation. Each label must stand for the same voice on both sides of
 * every boundary.
 */
const LOOPS = 3;
const CHUNK_SECONDS = 40;

let service: RunningService;
let api: Api;
let workDir: string;
let truth: ReferenceTurn[];
let durationMs: number;
let segments: ConversationSegment[];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'notes-chunks-'));
  const conversation = fixtureNamed(await ensureConversations(), 'two-speakers');
  const looped = join(workDir, 'conversation-x3.wav');
  await run('ffmpeg', [
    ...FFMPEG_QUIET,
    ...['-stream_loop', String(LOOPS - 1), '-i', conversation.audio, '-c', 'copy', looped],
  ]);
  ({ turns: truth, durationMs } = loopedTruth(conversation.truth, LOOPS));
  service = await startService({ env: { NOTES_RECOGNIZER_CHUNK_SECONDS: String(CHUNK_SECONDS) } });
  api = client(service.baseUrl, service.apiKey);
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, looped, 'audio/wav', 'Garden planning, three times');
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, { deadlineMs: 300_000 });
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  segments = final.body.conversation_segments as ConversationSegment[];
}, 360_000);

afterAll(async () => {
  await service?.stop();
  await rm(workDir, { recursive: true, force: true });
});

function loopedTruth(conversation: ConversationTruth, loops: number) {
  const turns = Array.from({ length: loops }, (_, loop) =>
    conversation.turns.map((turn) => ({
      ...turn,
      start_ms: turn.start_ms + loop * conversation.duration_ms,
      end_ms: turn.end_ms + loop * conversation.duration_ms,
    })),
  ).flat();
  return { turns, durationMs: loops * conversation.duration_ms };
}

/** The true voice speaking most of `segment`'s time. */
function voiceOf(segment: ConversationSegment): string | undefined {
  const overlap = new Map<string, number>();
  for (const turn of truth) {
    const shared = Math.min(turn.end_ms, segment.end_ms) - Math.max(turn.start_ms, segment.start_ms);
    if (shared > 0) overlap.set(turn.speaker, (overlap.get(turn.speaker) ?? 0) + shared);
  }
  return [...overlap].sort((a, b) => b[1] - a[1])[0]?.[0];
}

describe('speakers hold across the chunks of a long recording', () => {
  it('cuts the recording into chunks whose boundaries fall inside the conversation, away from its seams', () => {
    const boundaries = planChunks(durationMs, { chunkMs: CHUNK_SECONDS * 1000 })
      .slice(1)
      .map((chunk) => chunk.keepFromMs);
    expect(boundaries).toHaveLength(3);
    const loopMs = durationMs / LOOPS;
    for (const boundary of boundaries) {
      const fromSeam = Math.min(boundary % loopMs, loopMs - (boundary % loopMs));
      expect(fromSeam).toBeGreaterThan(5_000);
    }
  });

  it('gives each voice one label, the same before and after every chunk boundary', () => {
    const labels = new Set(segments.map((segment) => segment.speaker_label));
    expect(labels.size).toBe(2);
    // Each label's voice, by the time it speaks: the majority must hold for the whole recording.
    const time = new Map<string, Map<string, number>>();
    for (const segment of segments) {
      const voice = voiceOf(segment);
      if (!voice) continue;
      const byVoice = time.get(segment.speaker_label ?? '') ?? new Map<string, number>();
      byVoice.set(voice, (byVoice.get(voice) ?? 0) + segment.end_ms - segment.start_ms);
      time.set(segment.speaker_label ?? '', byVoice);
    }
    const voiceOfLabel = new Map(
      [...time].map(([label, byVoice]) => [label, [...byVoice].sort((a, b) => b[1] - a[1])[0]?.[0]]),
    );
    expect(new Set(voiceOfLabel.values()).size).toBe(2);

    const boundaries = planChunks(durationMs, { chunkMs: CHUNK_SECONDS * 1000 })
      .slice(1)
      .map((chunk) => chunk.keepFromMs);
    for (const boundary of boundaries) {
      const near = segments.filter(
        (segment) => segment.end_ms > boundary - 10_000 && segment.start_ms < boundary + 10_000,
      );
      expect(
        near.some((segment) => segment.end_ms <= boundary),
        `words before ${boundary} ms`,
      ).toBe(true);
      expect(
        near.some((segment) => segment.start_ms >= boundary),
        `words after ${boundary} ms`,
      ).toBe(true);
      for (const segment of near) {
        expect(
          voiceOfLabel.get(segment.speaker_label ?? ''),
          `"${segment.text}" at ${segment.start_ms} ms`,
        ).toBe(voiceOf(segment));
      }
    }
  });
});
