/** What the API's thread and the emulators' thread (src/local/emulator-thread.ts) say to each other. */
import type { EmulatorOptions, Emulators } from './emulators.ts';
import type { ThreadStartFailed } from './thread-start-failure.ts';

/** The options that cross to the thread: functions (the log, a staging-file opener) cannot. */
export type EmulatorThreadOptions = Omit<EmulatorOptions, 'log' | 'openStagingFile' | 'inProcess'>;

/** What the emulators are, as data: everything of `Emulators` but its methods. */
export type EmulatorsDescription = Omit<Emulators, 'storageCors' | 'stop'>;

export type ToEmulatorThread = { type: 'allow-service-origin'; apiUrl: string } | { type: 'stop' };

export type FromEmulatorThread =
  | { type: 'log'; line: string }
  /** `marks`: the thread's start-up performance marks, in ms since the epoch (NOTES_START_TRACE). */
  | { type: 'started'; emulators: EmulatorsDescription; marks: ThreadMark[] }
  /** The start failed; the thread has undone what it started and ends. */
  | ThreadStartFailed
  | { type: 'service-origin-allowed' }
  | { type: 'stopped' };

export interface ThreadMark {
  name: string;
  /** Milliseconds since the epoch: the thread's performance clock need not be the API thread's. */
  at: number;
}
