import { request } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { LOCAL_REGION, type LocalCredentials } from '../../adapters/aws-client-config.ts';
import { NodeSha256 } from './node-sha256.ts';

/**
 * A signed JSON-protocol call to a local emulator (dynalite, the SQS emulator) from the emulators'
 * own thread or the readiness probe: the few calls they make (the table described, the queues made,
 * upload events sent, a queue asked about) do not need the SDK's clients, whose loading was a third of the thread's start (docs/benchmarks.md,
 * "Start-up"). Signed with @smithy/signature-v4, as the SDK signs, so the same guard checks them
 * (src/local/sigv4/json-service-guard.ts).
 */
export interface JsonServiceClient {
  /** The operation's output; an error answer throws a JsonServiceError named after AWS's error type. */
  call<T = Record<string, unknown>>(operation: string, input: object): Promise<T>;
}

export class JsonServiceError extends Error {
  constructor(
    /** AWS's error type without its namespace: `ResourceNotFoundException`, … */
    readonly type: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = type;
  }
}

/** The X-Amz-Target prefix of each service's operations. */
const TARGET_PREFIX = { dynamodb: 'DynamoDB_20120810', sqs: 'AmazonSQS' } as const;

export function jsonServiceClient(
  service: keyof typeof TARGET_PREFIX,
  endpoint: string,
  credentials: LocalCredentials,
): JsonServiceClient {
  const url = new URL(endpoint);
  const signer = new SignatureV4({ service, region: LOCAL_REGION, credentials, sha256: NodeSha256 });
  return {
    async call<T>(operation: string, input: object): Promise<T> {
      const body = JSON.stringify(input);
      const signed = await signer.sign({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: '/',
        query: {},
        headers: {
          host: url.host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `${TARGET_PREFIX[service]}.${operation}`,
        },
        body,
      });
      const { status, text } = await post(url, signed.headers, body);
      const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      if (status >= 400) {
        const type =
          String(parsed.__type ?? 'UnknownError')
            .split('#')
            .pop() ?? 'UnknownError';
        const message = String(parsed.message ?? parsed.Message ?? `${operation} failed (${status})`);
        throw new JsonServiceError(type, message, status);
      }
      return parsed as T;
    },
  };
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        method: 'POST',
        hostname: url.hostname,
        port: url.port,
        path: '/',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
