import { clock } from './format.ts';

/** `(00:01:23)`: how the service writes a moment into an answer's text (hh:mm:ss, as in its exports). */
const SERVICE_TIME = /\((\d{2,}):([0-5]\d):([0-5]\d)\)/g;

/**
 * An answer's text with the moments it names written as the app writes them everywhere else (`1:23`,
 * `1:02:03` past an hour; format.ts `clock`), so the time beside a quote reads like the link that
 * opens it. Only a time in brackets is taken as a moment: a time of day in the prose stays.
 */
export function withAppTimes(answer: string): string {
  return answer.replace(SERVICE_TIME, (_, hours: string, minutes: string, seconds: string) => {
    const ms = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
    return `(${clock(ms)})`;
  });
}
