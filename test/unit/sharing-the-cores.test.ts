import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  BACKGROUND_NICENESS,
  idleSchedulingAvailable,
  inIdleClass,
  runInBackground,
} from '../../src/adapters/speech/background-priority.ts';
import { CpuSlots } from '../../src/adapters/speech/cpu-slots.ts';
import { PocketsphinxSpeechToText } from '../../src/adapters/speech/pocketsphinx.ts';
import { readProcStat } from '../../src/adapters/speech/proc-stat.ts';
import { childrenByParentPid, killProgramTree } from '../../src/adapters/speech/program-tree.ts';
import { startThread, threadEntry } from '../../src/adapters/speech/threads/thread-entry.ts';
import {
  defaultTranscriptionConcurrency,
  MEMORY_PER_TRANSCRIPTION_BYTES,
  transcriptionConcurrencySetting,
} from '../../src/local/worker-concurrency.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { descendants, isAlive } from '../support/processes.ts';
import { waitUntil } from '../support/wait.ts';

/** The nice value of a thread or process (field 19 of its /proc stat line). */
const niceOf = (statPath: string) => Number(readProcStat(statPath)?.fields[16]);
/** The scheduling policy of a process (field 41; 5 is SCHED_IDLE, 0 the default). */
const policyOf = (statPath: string) => Number(readProcStat(statPath)?.fields[38]);
const SCHED_IDLE = 5;
/** The session a process belongs to (field 6). */
const sessionOf = (pid: number) => Number(readProcStat(`/proc/${pid}/stat`)?.fields[3]);

describe('CPU slots share the cores between recordings', () => {
  it('hands slots out in the order they were asked for, never more than its size at once', async () => {
    const slots = new CpuSlots(2);
    const order: string[] = [];
    const first = await slots.acquire();
    const second = await slots.acquire();
    const waiting = ['a', 'b', 'c'].map((name) =>
      slots.acquire().then((release) => {
        order.push(name);
        return release;
      }),
    );
    expect(slots.inUse).toBe(2);
    first();
    const a = await waiting[0];
    second();
    const b = await waiting[1];
    expect(order).toEqual(['a', 'b']);
    a?.();
    (await waiting[2])?.();
    b?.();
    expect(order).toEqual(['a', 'b', 'c']);
    expect(slots.inUse).toBe(0);
  });

  it('releasing twice frees one slot only', async () => {
    const slots = new CpuSlots(1);
    const release = await slots.acquire();
    release();
    release();
    await slots.acquire();
    expect(slots.inUse).toBe(1);
  });

  it('stops waiting when the waiter aborts, and the slot goes to the next in line', async () => {
    const slots = new CpuSlots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const abandoned = slots.acquire(controller.signal);
    const next = slots.acquire();
    controller.abort();
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    held();
    await next;
    expect(slots.inUse).toBe(1);
  });

  it('frees its slot when the work it ran fails', async () => {
    const slots = new CpuSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('recogniser crashed')))).rejects.toThrow(
      'recogniser crashed',
    );
    expect(slots.inUse).toBe(0);
  });
});

describe('recognition runs at a lower priority than the API', () => {
  it('starts a child process at the background nice value', async () => {
    const child = runInBackground(spawn('sleep', ['5']));
    try {
      expect(niceOf(`/proc/${child.pid}/stat`)).toBe(BACKGROUND_NICENESS);
      expect(niceOf(`/proc/${process.pid}/stat`)).toBe(0);
    } finally {
      child.kill();
    }
  });

  it('runs a recogniser and the programs it starts in the idle scheduling class, the API keeping its own', async () => {
    // Debian (here and in CI) has chrt in util-linux, which is essential there.
    expect(await idleSchedulingAvailable()).toBe(true);
    const [command, args] = await inIdleClass('sh', ['-c', 'sleep 5 & wait']);
    const shell = runInBackground(spawn(command, args));
    try {
      let children: string[] = [];
      for (let tries = 0; tries < 100 && children.length === 0; tries++) {
        await sleep(20);
        const listed = await readFile(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').catch(
          () => '',
        );
        children = listed.trim().split(' ').filter(Boolean);
      }
      expect(policyOf(`/proc/${shell.pid}/stat`)).toBe(SCHED_IDLE);
      expect(children).toHaveLength(1);
      expect(policyOf(`/proc/${children[0]}/stat`)).toBe(SCHED_IDLE);
      expect(policyOf(`/proc/${process.pid}/stat`)).toBe(0);
    } finally {
      shell.kill();
    }
  });

  it("keeps a recogniser in the service's session, where the kernel ranks it below the API, deaf to Ctrl-C and SIGTERM, and stops all its programs on abort", async () => {
    // Linux schedules each session as one group (autogroups): a recogniser in a session of its own
    // would share the cores with the whole service as an equal, whatever its idle class.
    const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
    if (!conversation) throw new Error('no two-speakers fixture');
    const controller = new AbortController();
    const work = new PocketsphinxSpeechToText().transcribe(
      conversation.audio,
      undefined,
      {},
      controller.signal,
    );
    work.catch(() => {});
    let programs: { pid: number; name: string }[] = [];
    await waitUntil(async () => {
      programs = (await descendants()).filter(
        (entry) => ['sh', 'cat'].includes(entry.name) || entry.name.startsWith('pocketsphinx'),
      );
      return (
        programs.some((entry) => entry.name.startsWith('pocketsphinx')) &&
        programs.some((entry) => entry.name === 'cat')
      );
    }, 'the recogniser to start');
    // The session decides the group; the autogroup file exists only where the kernel has autogroups.
    const ownAutogroup = await readFile('/proc/self/autogroup', 'utf8').catch(() => undefined);
    for (const { pid } of programs) {
      expect(sessionOf(pid)).toBe(sessionOf(process.pid));
      if (ownAutogroup !== undefined)
        expect(await readFile(`/proc/${pid}/autogroup`, 'utf8')).toBe(ownAutogroup);
    }
    // Ctrl-C in the terminal, or a SIGTERM to the process group, reaches the service's whole group: the
    // runtime drains on both, so the recogniser must keep going (the runtime stops it when the drain ends).
    for (const { pid } of programs) process.kill(pid, 'SIGINT');
    for (const { pid } of programs) process.kill(pid, 'SIGTERM');
    await sleep(300);
    for (const { pid, name } of programs)
      expect(await isAlive(pid), `${name} after SIGINT and SIGTERM`).toBe(true);
    controller.abort();
    await expect(work).rejects.toMatchObject({ name: 'AbortError' });
    for (const { pid, name } of programs) {
      await waitUntil(async () => !(await isAlive(pid)), `${name} (${pid}) to be killed`, 2_000);
    }
  });

  it('finds the programs a shell started from their parent pids too, for kernels without /proc children lists', async () => {
    const shell = spawn('sh', ['-c', 'sleep 5 & sleep 5 & wait']);
    try {
      let listed: number[] = [];
      await waitUntil(async () => {
        const text = await readFile(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8');
        listed = text.split(' ').filter(Boolean).map(Number);
        return listed.length === 2;
      }, 'the two sleeps');
      expect(childrenByParentPid(shell.pid ?? -1).sort()).toEqual(listed.sort());
    } finally {
      killProgramTree(shell);
    }
  });

  it('the diarizer thread lowers itself alone, leaving the thread that serves requests at its priority', async () => {
    const tasksBefore = new Set(await readdir('/proc/self/task'));
    const entry = threadEntry(
      new URL('../../src/adapters/speech/diarization/diarize-file.ts', import.meta.url).href,
      'diarizer-thread',
    );
    const thread = startThread(entry);
    try {
      // Its entry has run once the lowered thread shows up: poll, bounded (loading tsx takes a moment).
      let nices: number[] = [];
      for (let tries = 0; tries < 200 && !nices.includes(BACKGROUND_NICENESS); tries++) {
        await sleep(50);
        const started = (await readdir('/proc/self/task')).filter((tid) => !tasksBefore.has(tid));
        nices = started.map((tid) => niceOf(`/proc/self/task/${tid}/stat`) || 0); // gone meanwhile: 0
      }
      expect(nices).toContain(BACKGROUND_NICENESS);
      expect(niceOf(`/proc/self/task/${process.pid}/stat`)).toBe(0);
      // And into the idle scheduling class (chrt, run by the thread once it has started).
      let policies: number[] = [];
      for (let tries = 0; tries < 200 && !policies.includes(SCHED_IDLE); tries++) {
        await sleep(50);
        const started = (await readdir('/proc/self/task')).filter((tid) => !tasksBefore.has(tid));
        policies = started.map((tid) => policyOf(`/proc/self/task/${tid}/stat`) || 0);
      }
      expect(policies).toContain(SCHED_IDLE);
      expect(policyOf(`/proc/self/task/${process.pid}/stat`)).toBe(0);
    } finally {
      await thread.terminate();
    }
  });
});

describe('the local runtime transcribes as many recordings at once as the machine holds', () => {
  const GiB = 2 ** 30;

  it('runs two per core when memory allows (recognisers stay one per core)', () => {
    expect(defaultTranscriptionConcurrency(2, 20 * GiB)).toBe(4);
    expect(defaultTranscriptionConcurrency(16, 20 * GiB)).toBe(32);
  });

  it('runs fewer when half of the free memory cannot hold two per core, and never none', () => {
    expect(defaultTranscriptionConcurrency(16, 8 * MEMORY_PER_TRANSCRIPTION_BYTES)).toBe(4);
    expect(defaultTranscriptionConcurrency(4, 100 * 2 ** 20)).toBe(1);
  });

  it('takes NOTES_TRANSCRIPTION_CONCURRENCY as given, and refuses what is not a whole number from 1 to 64', () => {
    expect(transcriptionConcurrencySetting('3')).toBe(3);
    expect(transcriptionConcurrencySetting(undefined)).toBeGreaterThanOrEqual(1);
    for (const wrong of ['0', '-1', '2.5', 'many', '65']) {
      expect(() => transcriptionConcurrencySetting(wrong)).toThrow(/NOTES_TRANSCRIPTION_CONCURRENCY/);
    }
  });
});
