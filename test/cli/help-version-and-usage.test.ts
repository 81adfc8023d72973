import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_NODE_VERSION } from '../support/node22.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import { CLI_DIR, cliNode, describeRun, runCli } from './run-cli.ts';

const NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';
const OTHER = '8d0c6a52-1e7f-4b3a-9c2d-5f6e7a8b9c01';

/** Every command and the options its --help must name. */
const COMMANDS: Record<string, string[]> = {
  'auth status': [],
  'notes list': ['--state', '--limit', '--cursor', '--collection', '--all'],
  'notes get': [],
  'notes rename': [],
  'notes trash': [],
  'notes restore': [],
  'notes protect': ['--if-match'],
  'notes unprotect': ['--if-match'],
  'notes delete': ['--confirm'],
  'collections list': [],
  'collections create': ['--instructions', '--instructions-file', '--retention-days'],
  'collections rename': [],
  'collections update': [
    '--name',
    '--instructions',
    '--instructions-file',
    '--clear-instructions',
    '--retention-days',
  ],
  'collections delete': [],
  'collections add': [],
  'collections remove': [],
  transcribe: ['--title', '--note-id', '--content-type', '--speakers', '--wait', '--timeout'],
  'transcription get': ['--format', '--wait', '--timeout'],
  'transcription delete': ['--confirm'],
  'insights generate': ['--wait', '--timeout'],
  'insights get': ['--wait', '--timeout'],
  'artifacts generate': ['--language', '--regenerate', '--wait', '--timeout'],
  'artifacts get': ['--wait', '--timeout'],
  ask: ['--note', '--collection'],
  'keys list': [],
  'keys create': [],
  'keys revoke': [],
  'sessions list': [],
  'sessions end': ['--all'],
};
const GROUPS = ['auth', 'notes', 'collections', 'transcription', 'insights', 'artifacts', 'keys', 'sessions'];

/** Answers 200 to anything: a request reaching it is the failure these tests look for. */
let server: ScriptedServer<unknown>;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ status: 200, body: {} }));
});
afterAll(() => server?.close());

describe('notes --version and --help', () => {
  it('prints the version of cli/package.json', async () => {
    const { version } = JSON.parse(await readFile(resolve(CLI_DIR, 'package.json'), 'utf8')) as {
      version: string;
    };
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('lists every command and the exit codes in notes --help', async () => {
    const result = await runCli(['--help']);
    expect(result.code, describeRun(result)).toBe(0);
    for (const command of Object.keys(COMMANDS)) expect(result.stdout).toContain(command);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8])
      expect(result.stdout).toMatch(new RegExp(`^ +${code} +\\S`, 'm'));
    expect(result.stdout).toContain('NOTES_API_KEY');
    expect(result.stdout).toContain('NOTES_BASE_URL');
  });

  it('answers --help of every group with exit 0 and its commands', async () => {
    const results = await Promise.all(GROUPS.map((group) => runCli([group, '--help'])));
    results.forEach((result, i) => {
      const group = GROUPS[i] ?? '';
      expect(result.code, describeRun(result)).toBe(0);
      for (const command of Object.keys(COMMANDS).filter((name) => name.startsWith(`${group} `))) {
        expect(result.stdout).toContain(command);
      }
    });
  });

  it('answers --help of every command with exit 0, naming each of its options, without a key', async () => {
    const names = Object.keys(COMMANDS);
    const results = await Promise.all(names.map((name) => runCli([...name.split(' '), '--help'])));
    results.forEach((result, i) => {
      const name = names[i] ?? '';
      expect(result.code, `${name}: ${describeRun(result)}`).toBe(0);
      expect(result.stdout).toContain(`Usage: notes ${name}`);
      for (const option of [...(COMMANDS[name] ?? []), '--help']) expect(result.stdout).toContain(option);
    });
  });
});

describe('the cli package', () => {
  it('declares the notes bin, ESM, Node 20 and no dependencies at all', async () => {
    const manifest = JSON.parse(await readFile(resolve(CLI_DIR, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.bin).toEqual({ notes: './bin/notes.mjs' });
    expect(manifest.type).toBe('module');
    expect(manifest.engines).toEqual({ node: '>=20' });
    for (const field of [
      'dependencies',
      'peerDependencies',
      'optionalDependencies',
      'bundledDependencies',
      'bundleDependencies',
    ]) {
      const value = manifest[field];
      expect(value === undefined || Object.keys(value as object).length === 0, field).toBe(true);
    }
  });
});

describe('the Node the CLI runs on', () => {
  it('is the one this test project selects (Node 22 in cli-on-node-22), named in its User-Agent', async () => {
    const node = await cliNode();
    const expected = node === process.execPath ? process.versions.node : LAMBDA_NODE_VERSION;
    const before = server.received.length;
    const result = await runCli(['auth', 'status'], {
      NOTES_BASE_URL: server.baseUrl,
      NOTES_API_KEY: 'svc_sk_node_version_test_key',
    });
    const [request] = server.received.slice(before);
    expect(request?.headers['user-agent'], describeRun(result)).toMatch(new RegExp(` node/${expected}$`));
  });
});

describe('usage errors exit 2 and send nothing', () => {
  const env = () => ({ NOTES_BASE_URL: server.baseUrl, NOTES_API_KEY: 'svc_sk_usage_test_key' });

  it('refuses a permanent note deletion without --confirm, or with another ID', async () => {
    const before = server.received.length;
    const missing = await runCli(['notes', 'delete', NOTE], env());
    expect(missing.code, describeRun(missing)).toBe(2);
    expect(missing.stderr).toContain(`--confirm ${NOTE}`);
    const wrong = await runCli(['notes', 'delete', NOTE, '--confirm', OTHER], env());
    expect(wrong.code, describeRun(wrong)).toBe(2);
    expect(wrong.stderr).toMatch(/does not match/);
    const transcription = await runCli(['transcription', 'delete', NOTE], env());
    expect(transcription.code, describeRun(transcription)).toBe(2);
    expect(server.received.length).toBe(before);
    for (const result of [missing, wrong, transcription]) expect(result.stdout).toBe('');
  });

  it('rejects unknown commands, unknown options and malformed arguments', async () => {
    const before = server.received.length;
    const cases = [
      [],
      ['frobnicate'],
      ['notes'],
      ['notes', 'frobnicate'],
      ['notes', 'list', '--bogus'],
      ['notes', 'list', '--limit', 'ten'],
      ['notes', 'list', '--state', 'deleted'],
      ['notes', 'get'],
      ['notes', 'get', 'not-a-uuid'],
      ['notes', 'get', NOTE, 'extra'],
      ['artifacts', 'generate', NOTE, 'poem'],
      ['transcription', 'get', NOTE, '--format', 'pdf'],
      ['insights', 'generate', NOTE, '--wait', '--timeout', '-1'],
      ['transcribe', 'no-such-file.wav'],
      ['transcribe', resolve(CLI_DIR, 'package.json')],
      ['ask', '--note', NOTE],
      ['collections', 'create', ' '],
      ['collections', 'rename', NOTE, ''],
      ['collections', 'add', NOTE],
      ['collections', 'add', NOTE, 'not-a-uuid'],
      ['collections', 'remove', NOTE, 'not-a-uuid'],
      ['collections', 'delete'],
      ['collections', 'create', 'Recipes', '--instructions', 'x', '--instructions-file', 'x.txt'],
      ['collections', 'create', 'Recipes', '--instructions-file', 'no-such-file.txt'],
      ['collections', 'update', NOTE],
      ['collections', 'update', NOTE, '--instructions', 'x', '--clear-instructions'],
      ['collections', 'update', NOTE, '--name', ' '],
      ['collections', 'create', 'Stand-ups', '--retention-days', '0'],
      ['collections', 'create', 'Stand-ups', '--retention-days', '3651'],
      ['collections', 'update', NOTE, '--retention-days', '2.5'],
      ['collections', 'update', NOTE, '--retention-days', 'abc'],
      ['notes', 'protect', 'not-a-uuid'],
      ['notes', 'unprotect'],
    ];
    const results = await Promise.all(cases.map((args) => runCli(args, env())));
    results.forEach((result, i) => {
      expect(result.code, `${cases[i]?.join(' ')}: ${describeRun(result)}`).toBe(2);
      expect(result.stderr.trim()).not.toBe('');
      expect(result.stdout).toBe('');
    });
    expect(server.received.length).toBe(before);
  });

  it('exits 3 with a clear message when NOTES_API_KEY is not set', async () => {
    const before = server.received.length;
    const result = await runCli(['notes', 'list'], { NOTES_BASE_URL: server.baseUrl });
    expect(result.code, describeRun(result)).toBe(3);
    expect(result.stderr).toMatch(/NOTES_API_KEY is not set/);
    expect(server.received.length).toBe(before);
  });
});
