/**
 * What the microphone recorder is doing, as a pure state machine (no browser APIs), so every
 * transition can be tested on its own. Time comes in with the events: the elapsed time counts only
 * while recording, never while paused.
 */

/** Time recorded so far: `banked` from earlier stretches, plus the running one since `since`. */
export interface Clock {
  banked: number;
  since: number | null;
}

export type RecorderState =
  | { kind: 'idle' }
  /** Waiting for the microphone (the browser may be asking the person). */
  | { kind: 'asking' }
  | { kind: 'recording'; clock: Clock }
  | { kind: 'paused'; clock: Clock }
  /**
   * Finishing the file and uploading it; `total` is 0 until the upload starts; `stored` once the
   * service has the bytes (it queues the transcription a moment later).
   */
  | { kind: 'saving'; elapsedMs: number; sent: number; total: number; stored?: boolean }
  /**
   * The microphone could not be opened (`kept` false), or the recording could not be saved and is
   * kept in this browser to try again (`kept` true).
   */
  | { kind: 'failed'; message: string; kept: false }
  | { kind: 'failed'; message: string; kept: true; elapsedMs: number };

export type RecorderEvent =
  | { type: 'ask' }
  | { type: 'started'; at: number }
  | { type: 'refused'; message: string }
  | { type: 'pause'; at: number }
  | { type: 'resume'; at: number }
  | { type: 'stop'; at: number }
  /** A kept recording (this one after a failure, or one found from an earlier visit) is sent. */
  | { type: 'save-kept'; elapsedMs: number }
  | { type: 'progress'; sent: number; total: number }
  /** The upload is stored; the app waits for the service to queue the transcription. */
  | { type: 'stored' }
  | { type: 'saved' }
  | { type: 'save-failed'; message: string }
  | { type: 'discard' }
  /** Acknowledges a microphone failure. */
  | { type: 'dismiss' };

export const IDLE: RecorderState = { kind: 'idle' };

/** The next state; an event that makes no sense in the current state changes nothing. */
export function next(state: RecorderState, event: RecorderEvent): RecorderState {
  switch (event.type) {
    case 'ask':
      return state.kind === 'idle' || (state.kind === 'failed' && !state.kept) ? { kind: 'asking' } : state;
    case 'started':
      return state.kind === 'asking' ? { kind: 'recording', clock: { banked: 0, since: event.at } } : state;
    case 'refused':
      return state.kind === 'asking' ? { kind: 'failed', message: event.message, kept: false } : state;
    case 'pause':
      return state.kind === 'recording'
        ? { kind: 'paused', clock: { banked: elapsedMs(state, event.at), since: null } }
        : state;
    case 'resume':
      return state.kind === 'paused'
        ? { kind: 'recording', clock: { banked: state.clock.banked, since: event.at } }
        : state;
    case 'stop':
      return state.kind === 'recording' || state.kind === 'paused'
        ? { kind: 'saving', elapsedMs: elapsedMs(state, event.at), sent: 0, total: 0 }
        : state;
    case 'save-kept':
      return state.kind === 'idle' || (state.kind === 'failed' && state.kept)
        ? { kind: 'saving', elapsedMs: event.elapsedMs, sent: 0, total: 0 }
        : state;
    case 'progress':
      return state.kind === 'saving' ? { ...state, sent: event.sent, total: event.total } : state;
    case 'stored':
      return state.kind === 'saving' ? { ...state, sent: state.total, stored: true } : state;
    case 'saved':
      return state.kind === 'saving' ? IDLE : state;
    case 'save-failed':
      return state.kind === 'saving'
        ? { kind: 'failed', message: event.message, kept: true, elapsedMs: state.elapsedMs }
        : state;
    case 'discard':
      return state.kind === 'recording' || state.kind === 'paused' || (state.kind === 'failed' && state.kept)
        ? IDLE
        : state;
    case 'dismiss':
      return state.kind === 'failed' && !state.kept ? IDLE : state;
  }
}

/** Milliseconds recorded by `now` (pauses excluded). */
export function elapsedMs(state: RecorderState, now: number): number {
  switch (state.kind) {
    case 'recording':
    case 'paused':
      return state.clock.banked + (state.clock.since === null ? 0 : Math.max(0, now - state.clock.since));
    case 'saving':
      return state.elapsedMs;
    case 'failed':
      return state.kept ? state.elapsedMs : 0;
    default:
      return 0;
  }
}

/** The microphone is open (recording or paused): leaving the page would cut the recording short. */
export function isLive(state: RecorderState): boolean {
  return state.kind === 'recording' || state.kind === 'paused';
}

/** `04:07`, or `1:04:07` past an hour: a recorder's elapsed time. */
export function elapsedClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${minutes}:${seconds}` : `${minutes}:${seconds}`;
}
