import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { forwardedRequest } from '../forwarded-request.ts';
import type { AuthFailure } from './failures.ts';
import { checkBeforeBody, type VerifierSettings, verifySignature } from './verify.ts';

/** DynamoDB's largest request is a 16 MB batch; the queue's 1 MiB (+ JSON) fits well within. */
const MAX_BODY_BYTES = 17 * 1024 * 1024;

/**
 * Puts a header-signature check in front of an in-process JSON-protocol emulator (dynalite for
 * DynamoDB, local-aws-sqs for SQS): a request reaches it only when signed with the local credentials,
 * over exactly the body it carries. Refusals use the service's own JSON error shape, so SDK clients
 * raise the error names AWS would (UnrecognizedClientException, InvalidSignatureException, …).
 */
export function guardJsonService(
  emulator: RequestListener,
  settings: VerifierSettings & { service: 'dynamodb' | 'sqs' },
): RequestListener {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const received = { method: req.method ?? 'POST', target: req.url ?? '/', headers: req.headers };
    const refuse = (failure: AuthFailure) => {
      const { status, type, message } = jsonAuthError(settings.service, failure);
      sendJsonError(res, status, type, message, { close: true });
    };
    // Credentials, then the declared size, before reading anything: a request without the local
    // key costs no memory, and a body that could not be accepted is not read.
    const early = checkBeforeBody(received, settings, new Date());
    if (!early.ok) return refuse(early.failure);
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuseTooLarge(res);
    const body = await readBody(req);
    if (!body) return refuseTooLarge(res);
    const payloadHash = createHash('sha256').update(body).digest('hex');
    const verdict = await verifySignature(received, settings, payloadHash, new Date());
    if (!verdict.ok) return refuse(verdict.failure);
    emulator(forwardedRequest(req, Readable.from([body])), res);
  };
  return (req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else sendJsonError(res, 500, 'com.amazon.coral.service#InternalFailure', 'Internal failure');
    });
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function refuseTooLarge(res: ServerResponse): void {
  sendJsonError(res, 413, 'com.amazon.coral.service#SerializationException', 'Request body too large', {
    close: true,
  });
}

/** `close`: Node ends the connection with the answer, so an unread body is never read. */
function sendJsonError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  { close = false } = {},
): void {
  const body = JSON.stringify({ __type: type, message });
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-ErrorType': type.split('#')[1] ?? type,
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(body);
}

const CORAL = 'com.amazon.coral.service#';

/** DynamoDB answers 400 with coral exception names; SQS (JSON protocol) uses its query-era codes. */
function jsonAuthError(
  service: 'dynamodb' | 'sqs',
  failure: AuthFailure,
): { status: number; type: string; message: string } {
  const dynamodb = service === 'dynamodb';
  switch (failure.kind) {
    case 'missing':
      return {
        status: dynamodb ? 400 : 403,
        type: `${CORAL}${dynamodb ? 'MissingAuthenticationTokenException' : 'MissingAuthenticationToken'}`,
        message: 'Request is missing Authentication Token',
      };
    case 'unknown-key':
      return {
        status: dynamodb ? 400 : 403,
        type: `${CORAL}${dynamodb ? 'UnrecognizedClientException' : 'InvalidClientTokenId'}`,
        message: 'The security token included in the request is invalid.',
      };
    case 'mismatch':
      return {
        status: dynamodb ? 400 : 403,
        type: `${CORAL}${dynamodb ? 'InvalidSignatureException' : 'SignatureDoesNotMatch'}`,
        message:
          'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      };
    case 'skewed':
    case 'expired':
    case 'not-yet-valid':
      return {
        status: 400,
        type: `${CORAL}${dynamodb ? 'InvalidSignatureException' : 'RequestExpired'}`,
        message: 'Signature expired: the request must be signed within 15 minutes of the current time.',
      };
    case 'unsigned-headers':
      return {
        status: 400,
        type: `${CORAL}${dynamodb ? 'IncompleteSignatureException' : 'IncompleteSignature'}`,
        message: `These x-amz-* headers must be signed: ${failure.headers.join(', ')}`,
      };
    case 'unsupported':
    case 'missing-date':
    case 'malformed':
      return {
        status: 400,
        type: `${CORAL}${dynamodb ? 'IncompleteSignatureException' : 'IncompleteSignature'}`,
        message:
          failure.kind === 'malformed'
            ? failure.message
            : 'Authorization header requires AWS4-HMAC-SHA256 with Credential, SignedHeaders, Signature and an X-Amz-Date header.',
      };
  }
}
