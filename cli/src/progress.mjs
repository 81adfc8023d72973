// @ts-check
import { info, stderrIsTty, stderrRaw } from './output.mjs';

/** Files above this size get a running percentage; smaller ones a start and an end line. */
export const PROGRESS_THRESHOLD_BYTES = 1024 * 1024;
/** Shortest time between two redraws on a terminal. */
const TTY_THROTTLE_MS = 200;
/** Without a terminal, one line per this many percent. */
const LINE_STEP_PERCENT = 10;

/**
 * @typedef {object} Progress
 * @property {(bytes: number) => void} advance bytes sent since the last call
 * @property {() => void} restart a retry starts from zero
 * @property {() => void} done
 */

/**
 * Upload progress on stderr: redrawn in place (throttled) on a terminal, otherwise one line every
 * 10 %; just a start and an end line for small files.
 * @param {string} label
 * @param {number} total bytes
 * @returns {Progress}
 */
export function createProgress(label, total) {
  const detailed = total > PROGRESS_THRESHOLD_BYTES;
  const tty = stderrIsTty();
  let sent = 0;
  let lastDraw = 0;
  let lastStep = -1;
  info(`Uploading ${label} (${formatBytes(total)})…`);

  const line = () => {
    const percent = total ? Math.floor((sent / total) * 100) : 100;
    return `Uploading ${label}: ${String(percent).padStart(3)}% (${formatBytes(sent)} of ${formatBytes(total)})`;
  };
  return {
    advance(bytes) {
      sent += bytes;
      if (!detailed) return;
      const now = Date.now();
      if (tty) {
        if (now - lastDraw < TTY_THROTTLE_MS && sent < total) return;
        lastDraw = now;
        stderrRaw(`\r${line()}`);
        return;
      }
      const step = Math.floor(((sent / total) * 100) / LINE_STEP_PERCENT);
      if (step === lastStep) return;
      lastStep = step;
      info(line());
    },
    restart() {
      if (detailed && tty) stderrRaw('\n');
      sent = 0;
      lastStep = -1;
    },
    done() {
      if (detailed && tty) stderrRaw('\n');
      info(`Uploaded ${label} (${formatBytes(total)}).`);
    },
  };
}

/**
 * @param {number} bytes
 * @returns {string} e.g. `4.2 MiB`
 */
export function formatBytes(bytes) {
  const units = ['KiB', 'MiB', 'GiB'];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
