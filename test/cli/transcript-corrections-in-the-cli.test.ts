import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { transcribedNote } from '../support/transcribe.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

let service: RunningService;
let api: Api;
let env: Record<string, string>;
let noteId: string;

interface Transcript {
  revision: number;
  conversation_segments: { text: string; speaker: string; speaker_label: string }[];
}

beforeAll(async () => {
  service = await startService();
  api = client(service.baseUrl, service.apiKey);
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
  noteId = await transcribedNote(api, 'Corrected in the CLI');
}, 240_000);
afterAll(() => service?.stop());

const etagIn = (stderr: string) => /ETag: (".+")/.exec(stderr)?.[1];

describe('notes transcription edit, merge, split and undo', () => {
  it('corrects a segment, splits and merges it, and undoes back to the recogniser, printing each ETag', async () => {
    // A speaker is given by a name the note gives a label (a bare name could never be renamed).
    const named = await api('PATCH', `/v1/notes/${noteId}`, {
      body: { speaker_names: { 'Speaker 2': 'Ada' } },
    });
    expect(named.status).toBe(200);
    const read = await runCli(['transcription', 'get', noteId], env);
    expect(read.code, describeRun(read)).toBe(0);
    const original = stdoutJson<Transcript>(read);
    const originalTag = etagIn(read.stderr);
    expect(originalTag).toBeDefined();

    const edited = await runCli(
      [
        'transcription',
        'edit',
        noteId,
        '--segment',
        '0',
        '--text',
        'Corrected from the terminal.',
        '--speaker',
        'Ada',
      ],
      env,
    );
    expect(edited.code, describeRun(edited)).toBe(0);
    expect(stdoutJson<Transcript>(edited).conversation_segments[0]).toMatchObject({
      text: 'Corrected from the terminal.',
      speaker: 'Ada',
      speaker_label: 'Speaker 2',
    });
    const editedTag = etagIn(edited.stderr);

    // Pinned to the transcript as first read: it changed since, so nothing happens (exit 5).
    const stale = await runCli(
      ['transcription', 'merge', noteId, '--segment', '0', '--if-match', String(originalTag)],
      env,
    );
    expect(stale.code, describeRun(stale)).toBe(5);
    expect(stale.stderr).toMatch(/412/);

    const split = await runCli(
      ['transcription', 'split', noteId, '--segment', '0', '--at-word', '1', '--if-match', String(editedTag)],
      env,
    );
    expect(split.code, describeRun(split)).toBe(0);
    expect(
      stdoutJson<Transcript>(split)
        .conversation_segments.slice(0, 2)
        .map((s) => s.text),
    ).toEqual(['Corrected', 'from the terminal.']);
    const merged = await runCli(['transcription', 'merge', noteId, '--segment', '0'], env);
    expect(merged.code, describeRun(merged)).toBe(0);
    expect(stdoutJson<Transcript>(merged)).toMatchObject({ revision: 3 });

    const undone = await runCli(['transcription', 'undo', noteId], env);
    expect(undone.code, describeRun(undone)).toBe(0);
    expect(stdoutJson<Transcript>(undone).revision).toBe(2);
    const back = await runCli(['transcription', 'undo', noteId, '--original'], env);
    expect(back.code, describeRun(back)).toBe(0);
    expect(stdoutJson<Transcript>(back)).toEqual(original);
    expect(etagIn(back.stderr)).toBe(originalTag);
  });

  it('merges one speaker into another, so every segment is the one person’s, and undo separates them', async () => {
    // One voice heard as two: the first word made a segment of its own, given to a speaker of its own.
    const cut = await runCli(['transcription', 'split', noteId, '--segment', '0', '--at-word', '1'], env);
    expect(cut.code, describeRun(cut)).toBe(0);
    const kept = stdoutJson<Transcript>(await runCli(['transcription', 'get', noteId], env))
      .conversation_segments[0]?.speaker_label as string;
    const moved = 'Speaker 9';
    const split = await runCli(['transcription', 'edit', noteId, '--segment', '0', '--speaker', moved], env);
    expect(split.code, describeRun(split)).toBe(0);
    const before = stdoutJson<Transcript>(split);
    expect(new Set(before.conversation_segments.map((s) => s.speaker_label))).toEqual(new Set([kept, moved]));

    const merged = await runCli(
      ['transcription', 'merge-speakers', noteId, '--speaker', moved, '--into', kept],
      env,
    );
    expect(merged.code, describeRun(merged)).toBe(0);
    expect(stdoutJson<Transcript>(merged).conversation_segments.map((s) => s.speaker_label)).toEqual(
      before.conversation_segments.map(() => kept),
    );
    const undone = await runCli(['transcription', 'undo', noteId], env);
    expect(undone.code, describeRun(undone)).toBe(0);
    expect(stdoutJson<Transcript>(undone).conversation_segments).toEqual(before.conversation_segments);
  });

  it('gives a range of segments to a speaker, finds the segments in a similar voice, and applies them with --apply', async () => {
    const start = stdoutJson<Transcript>(await runCli(['transcription', 'get', noteId], env));
    const last = start.conversation_segments.length - 1;
    const range = await runCli(
      ['transcription', 'set-speaker', noteId, '--segments', `0-${last}`, '--speaker', 'Speaker 4'],
      env,
    );
    expect(range.code, describeRun(range)).toBe(0);
    expect(new Set(stdoutJson<Transcript>(range).conversation_segments.map((s) => s.speaker_label))).toEqual(
      new Set(['Speaker 4']),
    );
    // Every segment is Speaker 4's now: nothing is left to propose, and --apply changes nothing.
    const similar = await runCli(
      ['transcription', 'similar', noteId, '--speaker', 'Speaker 4', '--apply'],
      env,
    );
    expect(similar.code, describeRun(similar)).toBe(0);
    expect(similar.stderr).toContain('0 segment(s) sound like Speaker 4');
    expect(stdoutJson<{ segments: unknown[]; speaker_label: string }>(similar)).toMatchObject({
      speaker_label: 'Speaker 4',
      segments: [],
    });
    const undone = await runCli(['transcription', 'undo', noteId], env);
    expect(undone.code, describeRun(undone)).toBe(0);
    expect(stdoutJson<Transcript>(undone).conversation_segments).toEqual(start.conversation_segments);
  });

  it('refuses bad arguments before sending anything (exit 2), and reports a correction that cannot apply (exit 6)', async () => {
    const usage: string[][] = [
      ['transcription', 'edit', noteId, '--text', 'No segment'],
      ['transcription', 'edit', noteId, '--segment', '0'],
      ['transcription', 'split', noteId, '--segment', '0'],
      ['transcription', 'split', noteId, '--segment', '0', '--at-word', '1', '--at-ms', '10'],
      ['transcription', 'merge', noteId, '--segment', '-1'],
      ['transcription', 'merge-speakers', noteId, '--speaker', 'Speaker 2'],
      ['transcription', 'undo', 'not-a-uuid'],
      ['transcription', 'set-speaker', noteId, '--segments', '3-1', '--speaker', 'Speaker 2'],
      ['transcription', 'set-speaker', noteId, '--segments', '1,1', '--speaker', 'Speaker 2'],
      ['transcription', 'set-speaker', noteId, '--segments', '0'],
      ['transcription', 'similar', noteId],
    ];
    for (const args of usage) {
      const result = await runCli(args, env);
      expect(result.code, `${args.join(' ')}\n${describeRun(result)}`).toBe(2);
    }
    const outOfRange = await runCli(['transcription', 'merge', noteId, '--segment', '999'], env);
    expect(outOfRange.code, describeRun(outOfRange)).toBe(6);
    expect(outOfRange.stderr).toMatch(/no segment 999/);
  });
});
