#!/usr/bin/env node
/**
 * `npm run container:check`: builds the image from the repository's Dockerfile with podman and checks,
 * from this machine through the published ports, what a self-hoster relies on. Run as root on Debian
 * (it installs what it needs with apt-get). Prints one line per step with its measurements; exits 1
 * at the first failed step, leaving the container for inspection (`podman logs notes-check`).
 *
 *  1. the base image: docker.io/library/node:22-bookworm-slim if podman has it; else the stand-in
 *     scripts/container/stand-in-base.sh makes (this project's machines reach no container registry)
 *  2. `podman build --pull=never --format docker` (the docker format keeps HEALTHCHECK), timed; size
 *  3. run with a fresh volume at /data, both ports published on free ports of this machine, and the
 *     public URLs set to http://localhost:<published port>; start-to-healthy measured with the image's
 *     own HEALTHCHECK (`podman healthcheck run`: podman schedules health checks with systemd timers,
 *     which a machine without systemd lacks, so this script runs them)
 *  4. the service runs as UID 10001 under tini (PID 1, which reaps an orphan: no zombie is left); the
 *     OAuth metadata names the public URL as the issuer; whisper.cpp's
 *     binding loads in the image, and /readyz says which speech engine transcribes
 *  5. a real recording (LibriVox, from pocketsphinx-testdata) transcribed with the CLI
 *     (`notes transcribe FILE --wait`, key from the volume's api-key file): the words are checked
 *  6. `podman restart`: healthy again, and the transcript is still there (the volume)
 *  7. `podman stop` while a longer transcription runs: exit code 0 within the stop timeout, and after
 *     a start the transcription completes (nothing lost)
 *
 * Environment: NOTES_CHECK_KEEP=1 keeps the container and its volume afterwards; NOTES_CHECK_NO_CACHE=1
 * builds without podman's layer cache (the time of a first build).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const IMAGE = 'localhost/notes-service:check';
const BASE_IMAGE = 'docker.io/library/node:22-bookworm-slim';
const NAME = 'notes-check';
const VOLUME = 'notes-check-data';
const STOP_TIMEOUT_S = 30;
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const APT_PACKAGES = {
  podman: '/usr/bin/podman',
  debootstrap: '/usr/sbin/debootstrap',
  // crun (podman's default) cannot run containers where cgroup v1 and v2 are mounted together
  // ("hybrid"); runc can. Used only when crun fails (below).
  runc: '/usr/sbin/runc',
  'pocketsphinx-testdata': `${LIBRIVOX}/transcription`,
  ffmpeg: '/usr/bin/ffmpeg',
};

const started = Date.now();
const say = (line) => process.stdout.write(`[container:check] ${line}\n`);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function fail(message) {
  say(`FAILED: ${message}`);
  process.exit(1);
}

/** Runs a command; its output, or a failure naming the command and its stderr. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0 && !options.allowFailure) {
    fail(
      `${command} ${args.join(' ')} (exit ${result.status})\n${(result.stderr || result.stdout || '').slice(-3000)}`,
    );
  }
  return result;
}

function ensurePackages() {
  if (process.getuid?.() !== 0)
    fail('run as root: it installs packages, builds with podman and runs debootstrap');
  const missing = Object.entries(APT_PACKAGES)
    .filter(([, file]) => !existsSync(file))
    .map(([name]) => name);
  if (missing.length === 0) return;
  say(`apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/**
 * Podman's global and run options that work here: none where podman works as installed; where crun
 * cannot set the default resource limits or meets hybrid cgroups (firecracker VMs, some CI runners),
 * runc, with the open-files limit kept at this process's and a lower process limit.
 */
function podmanOptions() {
  const probe = (global, runArgs) =>
    run('podman', [...global, 'run', '--rm', '--pull=never', ...runArgs, BASE_IMAGE, 'true'], {
      allowFailure: true,
    });
  const first = probe([], []);
  if (first.status === 0) return { global: [], limits: [] };
  const nofile = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim();
  const limits = ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', 'nproc=4096:4096'];
  const second = probe(['--runtime', 'runc'], limits);
  if (second.status !== 0) {
    fail(`podman cannot run a container here:\n${first.stderr}\nwith runc and limits:\n${second.stderr}`);
  }
  say(
    `podman's defaults fail here (${first.stderr.trim().split('\n').pop()}): using runc and ${limits.join(' ')}`,
  );
  return { global: ['--runtime', 'runc'], limits };
}

/**
 * Build-time mounts that let npm in the build reach the registry through this machine's TLS setup: a
 * machine whose npm trusts a CA file of its own (a TLS-inspecting proxy) lends that file and an npmrc
 * naming it to the build's RUN steps. They are mounts, not layers: nothing of it stays in the image.
 */
function npmTrustMounts(workDir) {
  const cafile = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout?.trim();
  if (!cafile || cafile === 'null' || cafile === 'undefined' || !existsSync(cafile)) return [];
  const npmrc = join(workDir, 'npmrc');
  execFileSync('sh', ['-c', `printf 'cafile=/run/host-npm-ca.pem\\n' > ${npmrc}`]);
  say(`npm here trusts ${cafile}: lent to the build's npm (a mount, not part of the image)`);
  return ['-v', `${cafile}:/run/host-npm-ca.pem:ro`, '-v', `${npmrc}:/usr/local/etc/npmrc:ro`];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the image's HEALTHCHECK until it passes; the time it took. */
async function waitHealthy(podman, since, limitS = 180) {
  while (Date.now() - since < limitS * 1000) {
    const state = run('podman', [
      ...podman.global,
      'inspect',
      NAME,
      '--format',
      '{{.State.Status}}',
    ]).stdout.trim();
    if (state !== 'running') fail(`the container is ${state}:\n${run('podman', ['logs', NAME]).stderr}`);
    if (run('podman', [...podman.global, 'healthcheck', 'run', NAME], { allowFailure: true }).status === 0) {
      return Date.now() - since;
    }
    await sleep(500);
  }
  fail(`not healthy after ${limitS} s:\n${run('podman', ['logs', NAME], { allowFailure: true }).stderr}`);
}

function notesCli(args, env) {
  return run(process.execPath, [join(root, 'cli', 'bin', 'notes.mjs'), ...args], {
    env: { ...process.env, ...env },
  }).stdout;
}

function words(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** The share of the reference's words the transcript has (each counted once). */
function wordRecall(reference, transcript) {
  const heard = new Set(words(transcript));
  const expected = [...new Set(words(reference))];
  return expected.filter((word) => heard.has(word)).length / expected.length;
}

function librivoxReference(id) {
  const line = readFileSync(join(LIBRIVOX, 'transcription'), 'utf8')
    .split('\n')
    .find((entry) => entry.includes(`(${id})`));
  if (!line) fail(`no reference for ${id}`);
  return line
    .replace(/<\/?s>/g, '')
    .replace(/\(.*\)/, '')
    .trim();
}

async function main() {
  ensurePackages();
  const workDir = mkdtempSync(join(tmpdir(), 'notes-container-check-'));
  try {
    // 1. Base image.
    if (run('podman', ['image', 'exists', BASE_IMAGE], { allowFailure: true }).status !== 0) {
      const t = Date.now();
      run('sh', [join(root, 'scripts', 'container', 'stand-in-base.sh')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      say(`base: made the stand-in ${BASE_IMAGE} in ${seconds(Date.now() - t)}`);
    } else {
      say(`base: ${BASE_IMAGE} (already in podman's storage)`);
    }
    const podman = podmanOptions();
    say(`podman: ${run('podman', ['--version']).stdout.trim()}`);

    // 2. Build.
    run('podman', ['rm', '-f', NAME], { allowFailure: true });
    run('podman', ['volume', 'rm', '-f', VOLUME], { allowFailure: true });
    let t = Date.now();
    run(
      'podman',
      [
        ...podman.global,
        'build',
        '--pull=never',
        '--format',
        'docker',
        ...(process.env.NOTES_CHECK_NO_CACHE ? ['--no-cache'] : []),
        ...podman.limits,
        ...npmTrustMounts(workDir),
        '-t',
        IMAGE,
        root,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const size = Number(run('podman', ['image', 'inspect', IMAGE, '--format', '{{.Size}}']).stdout.trim());
    say(
      `build${process.env.NOTES_CHECK_NO_CACHE ? ' (no layer cache)' : ''}: ${seconds(Date.now() - t)}; image ${(size / 1e9).toFixed(2)} GB (${size} bytes)`,
    );

    // 3. Run, published on free ports, with the public URLs those ports give.
    const [apiPort, storagePort] = [await freePort(), await freePort()];
    const baseUrl = `http://localhost:${apiPort}`;
    t = Date.now();
    run('podman', [
      ...podman.global,
      'run',
      '-d',
      '--name',
      NAME,
      ...podman.limits,
      '-p',
      `127.0.0.1:${apiPort}:8787`,
      '-p',
      `127.0.0.1:${storagePort}:8788`,
      '-v',
      `${VOLUME}:/data`,
      '-e',
      `NOTES_PUBLIC_URL=${baseUrl}`,
      '-e',
      `NOTES_STORAGE_PUBLIC_URL=http://localhost:${storagePort}`,
      IMAGE,
    ]);
    say(`start-to-healthy: ${seconds(await waitHealthy(podman, t))} (HEALTHCHECK on /readyz)`);
    const logs = run('podman', ['logs', NAME]).stderr + run('podman', ['logs', NAME]).stdout;
    if (logs.includes('no start-up bundle'))
      fail('the container ran its sources through tsx: the image has no current start-up bundle');
    if (/\[setup\]/.test(logs)) fail(`the container tried to install packages:\n${logs}`);

    // 4. User and public URL.
    const uid = run('podman', ['exec', NAME, 'id', '-u']).stdout.trim();
    const pid1 = run('podman', ['top', NAME, 'huser', 'args']).stdout.trim().split('\n').slice(1);
    if (uid !== '10001' || !pid1.every((line) => line.trim().startsWith('10001'))) {
      fail(`expected every process to run as UID 10001: id -u ${uid}; ${pid1.join('; ')}`);
    }
    say(`user: every process runs as UID 10001 (${pid1.length} processes)`);

    // 4a. An init: PID 1 is tini, Node its child, and an orphan is reaped. A process whose parent
    // exits is handed to PID 1 (as a recogniser's child is when the recogniser is killed); an init
    // reaps it when it ends, where Node as PID 1 would leave a zombie until the container stops.
    const init = run('podman', ['exec', NAME, 'cat', '/proc/1/comm']).stdout.trim();
    if (init !== 'tini') fail(`PID 1 is ${init}, expected tini`);
    run('podman', ['exec', NAME, 'sh', '-c', '(sleep 1 &) ; exit 0']);
    await sleep(2500);
    const zombies = run('podman', [
      'exec',
      NAME,
      'sh',
      '-c',
      'grep -l "^State:[[:space:]]*Z" /proc/[0-9]*/status 2>/dev/null | wc -l',
    ]).stdout.trim();
    if (zombies !== '0') fail(`${zombies} zombie process(es) after an orphan ended: PID 1 does not reap`);
    say('init: PID 1 is tini; an orphaned process that ended was reaped (no zombie)');
    const metadata = await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json();
    if (metadata.issuer !== baseUrl) fail(`OAuth issuer ${metadata.issuer}, expected ${baseUrl}`);
    say(`public URL: the OAuth issuer is ${metadata.issuer}`);

    // 4b. Speech: whisper.cpp's prebuilt binding and koffi (which calls its C API), and sherpa-onnx
    // (the voice model's), are in the image and load there (libgomp1); /readyz says which engine
    // transcribes and how speakers are told apart (the models once baked in or fetched; this machine
    // reaches no model host, so without baked models: pocketsphinx and voice statistics, and why).
    const binding = `@fugood/node-whisper-linux-${process.arch}`;
    const loadBoth = `require('koffi').load(require.resolve(${JSON.stringify(binding)})); require('sherpa-onnx-node')`;
    run('podman', ['exec', '-w', '/app', NAME, 'node', '-e', loadBoth]);
    let speech = {};
    let voices = {};
    const settled = (state) => state === 'ready' || state === 'unavailable' || state === 'off';
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(500)) {
      ({ speech = {}, voices = {} } = await (await fetch(`${baseUrl}/readyz`)).json());
      if (settled(speech.state) && settled(voices.state)) break;
    }
    say(
      `speech: ${binding} (through koffi) and sherpa-onnx-node load in the image; /readyz: ${JSON.stringify({ speech, voices })}`,
    );

    // 5. A real recording through the published ports, with the CLI.
    const apiKey = run('podman', ['exec', NAME, 'cat', '/data/api-key']).stdout.trim();
    const cliEnv = { NOTES_BASE_URL: baseUrl, NOTES_API_KEY: apiKey };
    const id = 'sense_and_sensibility_01_austen_64kb-0870';
    t = Date.now();
    const result = JSON.parse(
      notesCli(['transcribe', join(LIBRIVOX, `${id}.wav`), '--wait', '--timeout', '300'], cliEnv),
    );
    const recall = wordRecall(librivoxReference(id), result.full_text ?? '');
    say(
      `transcribe: ${seconds(Date.now() - t)} for 7.1 s of LibriVox speech; ${Math.round(recall * 100)}% of the reference's words: "${result.full_text}"`,
    );
    if (recall < 0.6) fail('fewer than 60% of the reference words were recognised');

    // 6. Restart: the note is still there.
    t = Date.now();
    run('podman', [...podman.global, 'restart', '-t', String(STOP_TIMEOUT_S), NAME]);
    const healthyAgain = await waitHealthy(podman, t);
    const kept = JSON.parse(notesCli(['transcription', 'get', result.note_id], cliEnv));
    if (kept.full_text !== result.full_text) fail('after a restart the transcript differs or is gone');
    say(`restart: healthy again in ${seconds(healthyAgain)}; the transcript survived (volume)`);

    // 7. Stop while a longer recording is transcribed; it completes after the next start.
    const long = join(workDir, 'long.wav');
    const parts = ['0870', '0880', '0890', '0920', '0930'].map((n) =>
      join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${n}.wav`),
    );
    run('ffmpeg', [
      '-v',
      'error',
      ...parts.flatMap((p) => ['-i', p]),
      '-filter_complex',
      `concat=n=${parts.length}:v=0:a=1`,
      long,
    ]);
    const submitted = JSON.parse(notesCli(['transcribe', long], cliEnv));
    const noteId = submitted.note_id;
    let status = submitted.status;
    for (let i = 0; i < 60 && status !== 'processing'; i += 1) {
      await sleep(500);
      status =
        JSON.parse(
          run(process.execPath, [join(root, 'cli', 'bin', 'notes.mjs'), 'transcription', 'get', noteId], {
            env: { ...process.env, ...cliEnv },
            allowFailure: true,
          }).stdout || '{}',
        ).status ?? 'done';
    }
    t = Date.now();
    run('podman', [...podman.global, 'stop', '-t', String(STOP_TIMEOUT_S), NAME]);
    const stopS = Date.now() - t;
    const exit = run('podman', ['inspect', NAME, '--format', '{{.State.ExitCode}}']).stdout.trim();
    if (exit !== '0') fail(`podman stop: exit code ${exit}`);
    say(`stop: exit code 0 in ${seconds(stopS)} (status when stopped: ${status})`);
    t = Date.now();
    run('podman', [...podman.global, 'start', NAME]);
    await waitHealthy(podman, t);
    const resumed = JSON.parse(
      notesCli(['transcription', 'get', noteId, '--wait', '--timeout', '600'], cliEnv),
    );
    const longRecall = wordRecall(
      parts.map((p) => librivoxReference(p.split('/').pop().replace('.wav', ''))).join(' '),
      resumed.full_text ?? '',
    );
    if (longRecall < 0.5) fail(`the resumed transcription has ${Math.round(longRecall * 100)}% of the words`);
    say(
      `after the stop: the transcription completed (${Math.round(longRecall * 100)}% of the reference's words)`,
    );
    run('podman', [...podman.global, 'stop', '-t', String(STOP_TIMEOUT_S), NAME]);
    say(`passed in ${seconds(Date.now() - started)}`);
    if (!process.env.NOTES_CHECK_KEEP) {
      run('podman', ['rm', '-f', NAME], { allowFailure: true });
      run('podman', ['volume', 'rm', '-f', VOLUME], { allowFailure: true });
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
