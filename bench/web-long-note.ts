/**
 * `npm run bench -- web-long-note`: the note page in headless Chromium, a 1-minute note next to a
 * 2-hour one (1,309 segments) in the same run. Both are seeded through the runtime's own stores
 * (test/support/listenable-note.ts: timed words, two speakers, a tone as the recording) and read
 * through the real local API. Measured per note: time from opening it to its first segment painted
 * and to every segment drawn, DOM elements, the longest task while opening, and during 10 s of
 * playback the long tasks (over 50 ms, and over 100 ms) and how many segments changed in the DOM.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { getServices } from '../src/wiring/services.ts';
import { launchChromium, signIn } from '../test/support/chromium.ts';
import { startInProcess } from '../test/support/in-process-runtime.ts';
import { SEGMENT_MS, storeListenableNote } from '../test/support/listenable-note.ts';

const OPENINGS = 3;
const PLAYBACK_MS = 10_000;
const NOTES = [
  { name: '1-minute note', minutes: 1 },
  { name: '2-hour note', minutes: 120 },
];

export interface LongNoteRow {
  note: string;
  segments: number;
  /** Median over the openings. */
  first_segment_ms: number;
  all_segments_ms: number;
  longest_task_opening_ms: number;
  dom_elements: number;
  playback_long_tasks: number;
  playback_tasks_over_100ms: number;
  playback_longest_task_ms: number;
  /** Segments whose DOM changed during the playback (only the playing ones should). */
  segments_changed_in_playback: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Opens the note from the list (the app stays loaded, as when a person clicks it). */
async function open(page: Page, noteId: string) {
  await page.evaluate(`location.hash = '#/'`);
  await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
  return page.evaluate<{
    first: number;
    all: number;
    longest: number;
    elements: number;
  }>(`new Promise((done) => {
    const tasks = [];
    const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()));
    observer.observe({ type: 'longtask' });
    const started = performance.now();
    let first = 0;
    location.hash = '#/notes/${noteId}';
    const check = () => {
      if (!first && document.querySelector('.segment')) {
        // The frame after the one that holds it: the segment is painted.
        requestAnimationFrame(() => { first = performance.now() - started; check(); });
        return;
      }
      const list = document.querySelector('.segments');
      if (first && list && list.getAttribute('aria-busy') === 'false') {
        const all = performance.now() - started;
        setTimeout(() => {
          observer.disconnect();
          done({ first, all, longest: Math.max(0, ...tasks.map((task) => task.duration)),
            elements: document.getElementsByTagName('*').length });
        }, 500);
        return;
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  })`);
}

async function playFor(page: Page) {
  return page.evaluate<{
    count: number;
    over100: number;
    longest: number;
    changed: number;
  }>(`new Promise((done) => {
    const tasks = [];
    const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()));
    observer.observe({ type: 'longtask' });
    const changed = new Set();
    const mutations = new MutationObserver((records) => {
      for (const record of records) {
        const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
        const segment = node && node.closest('.segment');
        if (segment) changed.add(segment.id);
      }
    });
    mutations.observe(document.querySelector('.segments'), { subtree: true, childList: true, attributes: true, characterData: true });
    document.querySelector('.player .play').click();
    setTimeout(() => {
      document.querySelector('audio').pause();
      observer.disconnect();
      mutations.disconnect();
      done({ count: tasks.length, over100: tasks.filter((task) => task.duration > 100).length,
        longest: Math.max(0, ...tasks.map((task) => task.duration)), changed: changed.size });
    }, ${PLAYBACK_MS});
  })`);
}

export async function webLongNoteBench(): Promise<LongNoteRow[]> {
  const service = await startInProcess();
  const browser = await launchChromium();
  try {
    const account = String((await service.api('GET', '/v1/account')).body.account_id);
    const notes = [];
    for (const note of NOTES) {
      const id = randomUUID();
      const segments = Math.round((note.minutes * 60_000) / SEGMENT_MS);
      await storeListenableNote(getServices(), account, { id, title: note.name, segments });
      notes.push({ ...note, id, segments });
    }
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(service.runtime.apiUrl);
    await signIn(page, (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim());
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    const rows: LongNoteRow[] = [];
    for (const note of notes) {
      const openings = [];
      for (let round = 0; round < OPENINGS; round++) openings.push(await open(page, note.id));
      await page.locator('.player .play:not([disabled])').waitFor();
      await page.waitForFunction(`document.querySelector('audio').readyState >= 1`);
      const played = await playFor(page);
      rows.push({
        note: note.name,
        segments: note.segments,
        first_segment_ms: Math.round(median(openings.map((o) => o.first))),
        all_segments_ms: Math.round(median(openings.map((o) => o.all))),
        longest_task_opening_ms: Math.round(median(openings.map((o) => o.longest))),
        dom_elements: openings.at(-1)?.elements ?? 0,
        playback_long_tasks: played.count,
        playback_tasks_over_100ms: played.over100,
        playback_longest_task_ms: Math.round(played.longest),
        segments_changed_in_playback: played.changed,
      });
    }
    return rows;
  } finally {
    await browser.close();
    await service.stop();
  }
}

export function webLongNoteTable(rows: LongNoteRow[]): string {
  return [
    '| note | segments | first segment painted | all segments drawn | longest task opening | DOM elements | long tasks in 10 s of playback (> 100 ms) | longest task in playback | segments changed in playback |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.note} | ${row.segments} | ${row.first_segment_ms} ms | ${row.all_segments_ms} ms | ${row.longest_task_opening_ms} ms | ${row.dom_elements} | ${row.playback_long_tasks} (${row.playback_tasks_over_100ms}) | ${row.playback_longest_task_ms} ms | ${row.segments_changed_in_playback} |`,
    ),
    '',
    `Median of ${OPENINGS} openings from the notes list; long tasks as Chromium reports them (over 50 ms).`,
  ].join('\n');
}
