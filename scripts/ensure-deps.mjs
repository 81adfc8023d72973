#!/usr/bin/env node
/**
 * Installs what the project needs and is missing, so `npm start` and `npm test` work on a fresh
 * machine: npm packages (npm ci when node_modules was not installed from this lockfile) and the
 * Debian packages of the local engines (apt-get when root; otherwise a message naming the command).
 * Plain Node with no dependencies: it runs before node_modules exists.
 *
 * Usage: node scripts/ensure-deps.mjs start|test (test also needs a browser); `npm start` calls
 * ensureDeps('start') in its own process (scripts/start.mjs), which saves starting another Node.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Debian package -> a file it installs, to tell whether it is present without dpkg. */
const SYSTEM_PACKAGES = {
  ffmpeg: '/usr/bin/ffmpeg',
  pocketsphinx: '/usr/bin/pocketsphinx_continuous',
  'pocketsphinx-en-us': '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
  // The podcast artifact's voices (and the tests' speech fixtures).
  flite: '/usr/bin/flite',
};

/** Only for `test`. */
const TEST_PACKAGES = {
  // The browser that runs the browser-based MCP client test (driven by playwright-core).
  chromium: '/usr/bin/chromium',
  // Real human speech for the quality tests (test/fixtures/real-voices/, test/fixtures/real-speech.ts):
  // LibriVox and "cards" recordings, and the voice of ALSA's channel test.
  'pocketsphinx-testdata': '/usr/share/pocketsphinx/test/data/librivox/fileids',
  'alsa-utils': '/usr/share/sounds/alsa/Front_Left.wav',
  // Speech in another language (German) for the recogniser-confidence tests
  // (test/fixtures/confidence-material.ts).
  'espeak-ng': '/usr/bin/espeak-ng',
  // More real people for the diarization bench and tests (test/fixtures/real-voices/voices.ts):
  // letters and syllables read by a different person per language (40 MB download), and 8 kHz
  // recordings of radio amateurs (11 MB).
  'klettres-data': '/usr/share/klettres/de/alpha/a.ogg',
  'codec2-examples': '/usr/share/codec2/wav/ve9qrp.wav',
};

function say(line) {
  process.stderr.write(`[setup] ${line}\n`);
}

/**
 * Installed when node_modules was installed from this very lockfile: a stamp of its content, written
 * after each install, since a checkout, a branch switch or a git worktree sharing node_modules renews
 * the lockfile's mtime without changing it (and `npm ci` then emptied node_modules under every other
 * checkout using it). Without a matching stamp, an install newer than the lockfile counts too (a
 * hand-run `npm install` rewrites both; installs made before the stamp existed).
 */
function ensureNpmPackages() {
  if (npmPackagesInstalled(root)) return;
  say('installing npm packages (npm ci)…');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm ci failed');
  recordInstall(root);
}

/**
 * Whether `checkout`'s node_modules holds what its lockfile names (above); an install found current by
 * its mtime gets its stamp now.
 * @param {string} checkout
 */
export function npmPackagesInstalled(checkout) {
  if (!existsSync(join(checkout, 'node_modules', '.package-lock.json'))) return false;
  if (readStamp(checkout) === lockfileHash(checkout)) return true;
  const installedAt = statSync(join(checkout, 'node_modules', '.package-lock.json')).mtimeMs;
  if (installedAt < statSync(join(checkout, 'package-lock.json')).mtimeMs) return false;
  recordInstall(checkout);
  return true;
}

/** @param {string} checkout */
function lockfileHash(checkout) {
  return createHash('sha256')
    .update(readFileSync(join(checkout, 'package-lock.json')))
    .digest('hex');
}

/** @param {string} checkout */
function readStamp(checkout) {
  try {
    return readFileSync(join(checkout, 'node_modules', '.installed-from-lockfile'), 'utf8');
  } catch {
    return undefined; // none yet, or unreadable: the mtimes decide
  }
}

/** @param {string} checkout */
function recordInstall(checkout) {
  try {
    writeFileSync(join(checkout, 'node_modules', '.installed-from-lockfile'), lockfileHash(checkout));
  } catch {
    // A node_modules this user cannot write (the container image's, root's): the mtimes decide.
  }
}

function ensureSystemPackages(packages) {
  const missing = Object.entries(packages)
    .filter(([, file]) => !existsSync(file))
    .map(([name]) => name);
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `Missing system packages: ${missing.join(', ')}. Install them with your package manager.`,
    );
  }
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Missing system packages: ${missing.join(', ')}. Install them with: sudo apt-get update && sudo ${command}`,
    );
  }
  say(`installing Debian packages: ${missing.join(', ')}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    stdio: 'inherit',
    env,
  });
}

/**
 * Installs what `start` or `test` needs and is missing; on failure, says why and exits with 1.
 * @param {'start' | 'test'} purpose
 */
export function ensureDeps(purpose) {
  try {
    ensureNpmPackages();
    ensureSystemPackages(purpose === 'test' ? { ...SYSTEM_PACKAGES, ...TEST_PACKAGES } : SYSTEM_PACKAGES);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureDeps(process.argv[2] === 'test' ? 'test' : 'start');
}
