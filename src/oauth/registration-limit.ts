import { isIP } from 'node:net';
import { OAuthError } from './errors.ts';
import type { OAuthStore } from './store.ts';

/**
 * Dynamic client registration is public: anyone may register, so each registration is a record on
 * the table written for free. The stage throttle of API Gateway bounds the rate for everyone at
 * once; this bounds it per client address, so one source cannot fill the table or crowd out the
 * others. Real clients register once per server (and again when their authorization server
 * changes), far below the limit.
 *
 * - Counted per source address, per fixed hour (one atomic counter on the table, expiring with it):
 *   IPv4 per address, IPv6 per /64 (one host usually holds a whole /64).
 * - Loopback sources are not limited: on the local runtime every client is on the person's own
 *   machine. On AWS the source is API Gateway's `sourceIp`, never loopback.
 * - Only registrations that pass validation are counted: a refused request stores nothing.
 * - Over the limit: 429, `Retry-After` (seconds to the next hour) and an RFC 7591 error body.
 */
export const REGISTRATIONS_PER_HOUR = 20;
const WINDOW_SECONDS = 3600;

export async function admitRegistration(
  store: OAuthStore,
  sourceIp: string | undefined,
  now: number,
): Promise<void> {
  const source = sourceIp === undefined ? null : limitedSource(sourceIp);
  if (source === null) return;
  const nowS = Math.floor(now / 1000);
  const windowStartS = nowS - (nowS % WINDOW_SECONDS);
  const windowEndS = windowStartS + WINDOW_SECONDS;
  const count = await store.countRegistration(source, windowStartS, windowEndS + WINDOW_SECONDS);
  if (count > REGISTRATIONS_PER_HOUR) {
    const retryAfter = windowEndS - nowS;
    throw new OAuthError(
      'temporarily_unavailable',
      `Too many client registrations from this address: at most ${REGISTRATIONS_PER_HOUR} an hour. Retry after ${retryAfter} s, or reuse the client_id already registered.`,
      429,
      { 'Retry-After': String(retryAfter), 'Access-Control-Expose-Headers': 'Retry-After' },
    );
  }
}

/** What a source is counted as: its IPv4 address or IPv6 /64; null for loopback (not limited). */
export function limitedSource(sourceIp: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(sourceIp)?.[1];
  const ip = mapped ?? sourceIp;
  const version = isIP(ip);
  if (version === 4) return ip.startsWith('127.') ? null : ip;
  if (version === 6) {
    const groups = ipv6Groups(ip);
    if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return null;
    return `${groups
      .slice(0, 4)
      .map((group) => group.toString(16))
      .join(':')}::/64`;
  }
  // Not an address (a stand-in event): counted as given.
  return sourceIp;
}

/** The eight 16-bit groups of a valid IPv6 address (compressed or with an IPv4 tail). */
function ipv6Groups(ip: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = ip.split('::');
  if (tail === undefined) return parse(head);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
