import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * The request handed to an in-process emulator after the front checked it: the same method, target,
 * headers and socket, with `body` as the stream it reads. Emulators only read these fields and the
 * stream (s3rver through Koa, dynalite and local-aws-sqs through 'data' and 'end').
 */
export function forwardedRequest(original: IncomingMessage, body: Readable): IncomingMessage {
  return Object.assign(body, {
    method: original.method,
    url: original.url,
    headers: original.headers,
    rawHeaders: original.rawHeaders,
    httpVersion: original.httpVersion,
    httpVersionMajor: original.httpVersionMajor,
    httpVersionMinor: original.httpVersionMinor,
    socket: original.socket,
    connection: original.socket,
    trailers: {},
    rawTrailers: [],
    aborted: false,
    complete: false,
  }) as unknown as IncomingMessage;
}
