import { describe, expect, it } from 'vitest';
import {
  chooseMimeType,
  fileExtension,
  recordingTitle,
  serviceContentType,
} from '../../web/src/recorder/format.ts';
import {
  elapsedClock,
  elapsedMs,
  IDLE,
  isLive,
  next,
  type RecorderEvent,
  type RecorderState,
} from '../../web/src/recorder/state.ts';

function run(events: RecorderEvent[], from: RecorderState = IDLE): RecorderState {
  return events.reduce(next, from);
}

const RECORDING: RecorderEvent[] = [{ type: 'ask' }, { type: 'started', at: 1000 }];

describe('the web app’s microphone recorder, as a state machine', () => {
  it('records once the microphone opens, and counts the time from then', () => {
    const state = run(RECORDING);
    expect(state.kind).toBe('recording');
    expect(elapsedMs(state, 4500)).toBe(3500);
    expect(isLive(state)).toBe(true);
  });

  it('does not count the time spent paused', () => {
    const state = run([
      ...RECORDING,
      { type: 'pause', at: 3000 },
      { type: 'resume', at: 10_000 },
      { type: 'pause', at: 11_000 },
    ]);
    expect(state.kind).toBe('paused');
    expect(elapsedMs(state, 60_000)).toBe(3000);
    expect(elapsedMs(run([{ type: 'resume', at: 20_000 }], state), 21_500)).toBe(4500);
  });

  it('saves with the time recorded until Stop, uploads, is stored while the service queues it, and is idle again once saved', () => {
    const saving = run([...RECORDING, { type: 'pause', at: 2000 }, { type: 'stop', at: 9000 }]);
    expect(saving).toEqual({ kind: 'saving', elapsedMs: 1000, sent: 0, total: 0 });
    const uploading = run([{ type: 'progress', sent: 10, total: 40 }], saving);
    expect(uploading).toMatchObject({ sent: 10, total: 40 });
    expect(run([{ type: 'stored' }], uploading)).toEqual({
      kind: 'saving',
      elapsedMs: 1000,
      sent: 40,
      total: 40,
      stored: true,
    });
    expect(run([{ type: 'stored' }], IDLE)).toBe(IDLE);
    expect(run([{ type: 'saved' }], saving)).toBe(IDLE);
  });

  it('keeps a recording whose save failed, to try again or discard, and does not take a new one meanwhile', () => {
    const failed = run([
      ...RECORDING,
      { type: 'stop', at: 5000 },
      { type: 'save-failed', message: 'Offline.' },
    ]);
    expect(failed).toEqual({ kind: 'failed', message: 'Offline.', kept: true, elapsedMs: 4000 });
    expect(run([{ type: 'ask' }], failed)).toBe(failed);
    expect(run([{ type: 'save-kept', elapsedMs: 4000 }], failed).kind).toBe('saving');
    expect(run([{ type: 'discard' }], failed)).toBe(IDLE);
  });

  it('says why when the microphone cannot be opened, and lets the person try again', () => {
    const refused = run([{ type: 'ask' }, { type: 'refused', message: 'The microphone is blocked.' }]);
    expect(refused).toEqual({ kind: 'failed', message: 'The microphone is blocked.', kept: false });
    expect(isLive(refused)).toBe(false);
    expect(run([{ type: 'ask' }], refused).kind).toBe('asking');
    expect(run([{ type: 'dismiss' }], refused)).toBe(IDLE);
  });

  it('discards a recording in progress, paused or not', () => {
    expect(run([...RECORDING, { type: 'discard' }])).toBe(IDLE);
    expect(run([...RECORDING, { type: 'pause', at: 2000 }, { type: 'discard' }])).toBe(IDLE);
  });

  it('ignores what makes no sense in the current state', () => {
    expect(
      run([
        { type: 'pause', at: 1 },
        { type: 'resume', at: 2 },
        { type: 'stop', at: 3 },
      ]),
    ).toBe(IDLE);
    const recording = run(RECORDING);
    expect(
      run(
        [
          { type: 'resume', at: 2000 },
          { type: 'started', at: 3000 },
        ],
        recording,
      ),
    ).toBe(recording);
    const saving = run([{ type: 'stop', at: 2000 }], recording);
    expect(
      run([{ type: 'pause', at: 2500 }, { type: 'discard' }, { type: 'save-kept', elapsedMs: 9 }], saving),
    ).toBe(saving);
  });

  it('shows the elapsed time as mm:ss, with hours past the first', () => {
    expect(elapsedClock(0)).toBe('00:00');
    expect(elapsedClock(65_999)).toBe('01:05');
    expect(elapsedClock(3_723_000)).toBe('1:02:03');
  });
});

describe('what a microphone recording is saved as', () => {
  it('prefers Opus in WebM, then Ogg, then MP4, as the browser supports them', () => {
    expect(chooseMimeType(() => true)).toBe('audio/webm;codecs=opus');
    expect(chooseMimeType((type) => type.startsWith('audio/ogg'))).toBe('audio/ogg;codecs=opus');
    expect(chooseMimeType((type) => type === 'audio/mp4')).toBe('audio/mp4');
    expect(chooseMimeType(() => false)).toBeNull();
  });

  it('declares the content type the service accepts, without codec parameters', () => {
    expect(serviceContentType('audio/webm;codecs=opus')).toBe('audio/webm');
    expect(serviceContentType('video/webm; codecs="opus"')).toBe('audio/webm');
    expect(serviceContentType('audio/mp4;codecs=mp4a.40.2')).toBe('audio/mp4');
    expect(serviceContentType('audio/x-matroska')).toBeNull();
    expect(fileExtension('audio/mp4')).toBe('m4a');
  });

  it('titles the note with when the recording started, in local time', () => {
    expect(recordingTitle(new Date(2026, 10, 27, 14, 5))).toBe('Recording 27 Nov 2026, 14:05');
    expect(recordingTitle(new Date(2027, 0, 3, 9, 0))).toBe('Recording 3 Jan 2027, 09:00');
  });
});
