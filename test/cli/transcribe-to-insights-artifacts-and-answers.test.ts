import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noSpeechRecording } from '../fixtures/confidence-material.ts';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

let service: RunningService;
let env: Record<string, string>;
/** The one note transcribed through the CLI; the later tests reuse it. */
const noteId = randomUUID();
let transcribed = false;

beforeAll(async () => {
  [service] = await Promise.all([startService(), speechFixture('slt', 'wav')]);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
});
afterAll(() => service?.stop());

function requireTranscribedNote(): void {
  if (!transcribed) throw new Error('the transcribe test did not produce the note this test needs');
}

describe('from a recording to answers through the CLI', () => {
  it('transcribe <wav> --wait uploads, shows progress on stderr and prints the finished transcript with its note ID', async () => {
    const fixture = await speechFixture('slt', 'wav');
    const result = await runCli(
      [
        'transcribe',
        fixture.file,
        '--note-id',
        noteId,
        '--title',
        'Morning meeting',
        '--wait',
        '--timeout',
        '300',
      ],
      env,
    );
    expect(result.code, describeRun(result)).toBe(0);
    const transcript = stdoutJson<{
      note_id: string;
      full_text: string;
      conversation_segments: unknown[];
      duration_ms: number;
    }>(result);
    expect(Object.keys(transcript)[0]).toBe('note_id');
    expect(transcript.note_id).toBe(noteId);
    expect(wordOverlap(fixture.script, transcript.full_text)).toBeGreaterThanOrEqual(0.6);
    expect(transcript.conversation_segments.length).toBeGreaterThan(0);
    expect(transcript.duration_ms).toBeGreaterThan(20_000);
    expect(result.stderr).toMatch(/Uploaded slt-25s\.wav/);
    expect(result.stderr).toMatch(/transcription of note \w+: (queued|processing)/);
    expect(result.stderr).toMatch(/ready after \d+ s/);
    expect(`${result.stdout}${result.stderr}`).not.toContain(service.apiKey);
    transcribed = true;
  });

  it('transcribe <wav> --wait of two sine tones prints the empty transcript and the no_speech notice on stderr', async () => {
    const tones = await noSpeechRecording('two-tones');
    const result = await runCli(['transcribe', tones, '--wait', '--timeout', '300'], env);
    expect(result.code, describeRun(result)).toBe(0);
    const transcript = stdoutJson<{ conversation_segments: unknown[]; notice: { code: string } }>(result);
    expect(transcript.conversation_segments).toEqual([]);
    expect(transcript.notice.code).toBe('no_speech');
    expect(result.stderr).toMatch(/Notice \(no_speech\): No speech was heard/);
  });

  it('transcription get --format srt prints SubRip text as is', async () => {
    requireTranscribedNote();
    const result = await runCli(['transcription', 'get', noteId, '--format', 'srt'], env);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(
      /^1\r?\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\r?\nSpeaker 1: \S/,
    );
  });

  it('insights generate --wait prints the Insights', async () => {
    requireTranscribedNote();
    const result = await runCli(['insights', 'generate', noteId, '--wait'], env);
    expect(result.code, describeRun(result)).toBe(0);
    const insights = stdoutJson(result);
    expect(insights).toMatchObject({ note_id: noteId, schema_version: 1 });
    expect(insights.summary).toMatchObject({ text: expect.any(String) });
    expect(result.stderr).toMatch(/Insights of note \w+: ready/);
  });

  it('artifacts generate <id> epiphany --wait prints the epiphany', async () => {
    requireTranscribedNote();
    const result = await runCli(['artifacts', 'generate', noteId, 'epiphany', '--wait'], env);
    expect(result.code, describeRun(result)).toBe(0);
    const artifact = stdoutJson<{ note_id: string; kind: string; content: { ideas: unknown[] } }>(result);
    expect(artifact).toMatchObject({ note_id: noteId, kind: 'epiphany' });
    expect(artifact.content.ideas.length).toBeGreaterThan(0);

    const again = await runCli(['artifacts', 'get', noteId, 'epiphany'], env);
    expect(again.code, describeRun(again)).toBe(0);
    expect(stdoutJson(again)).toEqual(artifact);
  });

  it('exits 6 when an artifact language cannot be produced', async () => {
    requireTranscribedNote();
    const result = await runCli(['artifacts', 'generate', noteId, 'epiphany', '--language', 'ja'], env);
    expect(result.code, describeRun(result)).toBe(6);
    expect(result.stderr).toMatch(/HTTP 422.*'ja'/);
    expect(result.stdout).toBe('');
  });

  it('ask "<question>" --note <id> answers from that note and returns it in note_ids', async () => {
    requireTranscribedNote();
    const result = await runCli(['ask', 'How many engineers will be hired?', '--note', noteId], env);
    expect(result.code, describeRun(result)).toBe(0);
    const answer = stdoutJson<{ answer: string; note_ids: string[]; citations: { note_id: string }[] }>(
      result,
    );
    expect(answer.note_ids).toEqual([noteId]);
    expect(answer.citations.every((citation) => citation.note_id === noteId)).toBe(true);
    expect(answer.answer).toMatch(/engineers/i);
  });

  it('search "<query>" prints the matching note as JSON and a readable list with the matches bracketed', async () => {
    requireTranscribedNote();
    const result = await runCli(['search', 'engineers', '--limit', '5'], env);
    expect(result.code, describeRun(result)).toBe(0);
    const page = stdoutJson<{
      results: { note: { note_id: string }; segments: { start_ms: number; snippet: string }[] }[];
      next_cursor: string | null;
    }>(result);
    expect(page.results.map((hit) => hit.note.note_id)).toEqual([noteId]);
    expect(page.results[0]?.segments[0]?.snippet).toMatch(/engineers/i);
    expect(result.stderr).toContain(noteId);
    expect(result.stderr).toMatch(/\[engineers\]/i);
    const trashedOnly = await runCli(['search', 'engineers', '--trashed', '--limit', '0'], env);
    expect(trashedOnly.code, describeRun(trashedOnly)).not.toBe(0);
  });
});
