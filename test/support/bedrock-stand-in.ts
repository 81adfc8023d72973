import { createServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeLoadedOnFirstUse } from '../../src/adapters/llm/bedrock-runtime-client.ts';

/** One Converse reply: an AWS error (restJson1: status, `x-amzn-ErrorType`, `{ message }`), a body, or none. */
export type ConverseReply =
  | { error: string; status: number; message: string }
  | { output: unknown }
  | { silent: true };

/** A reply made from the request's JSON body (a Converse request), for answers that cite what was sent. */
export type ConverseReplyTo = (request: unknown) => ConverseReply;

export interface BedrockStandIn {
  endpoint: string;
  /** The replies still to give, in order. */
  replies: Array<ConverseReply | ConverseReplyTo>;
  /** `POST /model/<id>/converse` paths received, decoded, oldest first. */
  calls: string[];
  /** Requests that were still waiting for an answer when their client went away. */
  abandoned: number;
  close(): Promise<void>;
}

/**
 * Bedrock Runtime on loopback, over cleartext HTTP/2 as the SDK speaks it: answers each Converse call
 * with the next scripted reply in AWS's wire shape, and records which model it was asked for.
 */
export async function startBedrockStandIn(): Promise<BedrockStandIn> {
  const standIn: Omit<BedrockStandIn, 'endpoint' | 'close'> = { replies: [], calls: [], abandoned: 0 };
  const server = createServer((request: Http2ServerRequest, response: Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      standIn.calls.push(decodeURIComponent(request.url));
      const next = standIn.replies.shift() ?? {
        error: 'InternalServerException',
        status: 500,
        message: 'script ended',
      };
      const reply =
        typeof next === 'function' ? next(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : next;
      if ('silent' in reply) {
        request.stream.on('close', () => {
          standIn.abandoned += 1;
        });
        return;
      }
      if ('error' in reply) {
        response.writeHead(reply.status, {
          'content-type': 'application/json',
          'x-amzn-errortype': `${reply.error}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
          'x-amzn-requestid': '6f1e2d3c-0000-4000-8000-000000000001',
        });
        response.end(JSON.stringify({ message: reply.message }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.output));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(standIn, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  });
}

/** The real Bedrock Runtime client pointed at a stand-in (one attempt: the tests script every reply). */
export function standInClient(standIn: Pick<BedrockStandIn, 'endpoint'>): BedrockRuntimeLoadedOnFirstUse {
  return new BedrockRuntimeLoadedOnFirstUse({
    endpoint: standIn.endpoint,
    region: 'us-east-1',
    maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'stand-in-secret' },
  });
}
