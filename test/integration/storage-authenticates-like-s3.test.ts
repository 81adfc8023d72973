import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCredentials, localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { readLocalCredentials } from '../../src/local/local-credentials.ts';
import type { LocalRuntime } from '../../src/local/runtime.ts';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import {
  accountIdOf,
  errorCode,
  putBytes,
  sha256,
  signedFetch,
  signedHeaders,
  storageClient,
  storedBytes,
  uploadTargetFor,
} from '../support/storage-requests.ts';

const CONFIGURED_ORIGIN = 'https://notes.example.com';

let service: InProcessService;
let runtime: LocalRuntime;
let alice: Api;
let credentials: LocalCredentials;
let s3: S3Client;
let bucket: string;
/** Another account's recording and transcript, which nothing in these tests may read or change. */
let bobAudioKey: string;
let bobTranscriptKey: string;
const bobAudio = randomBytes(2048);
const bobTranscript = JSON.stringify({ full_text: `bob's private words ${randomUUID()}` });

beforeAll(async () => {
  // No queue workers: the seeded objects are not real uploads for a worker to act on.
  service = await startInProcess({ storageCorsOrigins: [CONFIGURED_ORIGIN], workers: false });
  ({ runtime, api: alice } = service);
  credentials = await readLocalCredentials(runtime.dataDir);
  s3 = storageClient(runtime.storageUrl, credentials);
  bucket = runtime.info.bucket_name;
  const bobId = await accountIdOf(await service.otherAccount('bob'));
  const bobNote = randomUUID();
  bobAudioKey = objectKeys.audio(bobId, bobNote);
  bobTranscriptKey = objectKeys.transcription(bobId, bobNote);
  // Written with the runtime's credentials, as its worker would; no upload event matters here.
  await putBytes(s3, bucket, bobTranscriptKey, bobTranscript);
  await s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: bobAudioKey, Body: bobAudio, ContentType: 'audio/wav' }),
  );
});

afterAll(async () => {
  s3?.destroy();
  await service?.stop();
});

async function expectBobUntouched(): Promise<void> {
  expect(sha256((await storedBytes(s3, bucket, bobAudioKey)) ?? '')).toBe(sha256(bobAudio));
  expect((await storedBytes(s3, bucket, bobTranscriptKey))?.toString('utf8')).toBe(bobTranscript);
}

const objectUrl = (key: string) => `${runtime.storageUrl}/${bucket}/${key}`;

describe('object storage refuses what S3 would refuse', () => {
  it('refuses unsigned GET, HEAD, PUT, DELETE and list requests with 403 AccessDenied, and changes nothing', async () => {
    const requests: Array<[string, string, string?]> = [
      ['GET', objectUrl(bobTranscriptKey)],
      ['PUT', objectUrl(bobAudioKey), 'overwritten'],
      ['DELETE', objectUrl(bobAudioKey)],
      ['GET', `${runtime.storageUrl}/${bucket}?list-type=2`],
      ['GET', `${runtime.storageUrl}/`],
      ['POST', `${runtime.storageUrl}/${bucket}?delete`, '<Delete><Object><Key>x</Key></Object></Delete>'],
    ];
    for (const [method, url, body] of requests) {
      const response = await fetch(url, { method, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${url}`).toBe(403);
      expect(await errorCode(response)).toBe('AccessDenied');
    }
    const head = await fetch(objectUrl(bobAudioKey), { method: 'HEAD' });
    expect(head.status).toBe(403);
    await expectBobUntouched();
  });

  it('refuses requests signed with another secret (SignatureDoesNotMatch) or an unknown key (InvalidAccessKeyId), for every method', async () => {
    const commands = [
      new GetObjectCommand({ Bucket: bucket, Key: bobTranscriptKey }),
      new PutObjectCommand({ Bucket: bucket, Key: bobAudioKey, Body: 'overwritten' }),
      new DeleteObjectCommand({ Bucket: bucket, Key: bobAudioKey }),
      new ListObjectsV2Command({ Bucket: bucket }),
    ];
    const wrongSecret = storageClient(runtime.storageUrl, {
      ...credentials,
      secretAccessKey: 'x'.repeat(40),
    });
    const unknownKey = storageClient(runtime.storageUrl, {
      accessKeyId: 'LKNOTTHELOCALKEY0000',
      secretAccessKey: credentials.secretAccessKey,
    });
    for (const command of commands) {
      await expect(wrongSecret.send(command as never), command.constructor.name).rejects.toMatchObject({
        name: 'SignatureDoesNotMatch',
        $metadata: { httpStatusCode: 403 },
      });
      await expect(unknownKey.send(command as never), command.constructor.name).rejects.toMatchObject({
        name: 'InvalidAccessKeyId',
        $metadata: { httpStatusCode: 403 },
      });
    }
    await expectBobUntouched();
  });

  it('refuses an expired presigned URL, one dated in the future, and a header signature dated 20 minutes ago', async () => {
    const command = new GetObjectCommand({ Bucket: bucket, Key: bobTranscriptKey });
    const expired = await getSignedUrl(s3, command, {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    const expiredResponse = await fetch(expired);
    expect(expiredResponse.status).toBe(403);
    const expiredBody = await expiredResponse.text();
    expect(expiredBody).toContain('<Code>AccessDenied</Code>');
    expect(expiredBody).toContain('<Message>Request has expired</Message>');

    const future = await getSignedUrl(s3, command, {
      expiresIn: 3600,
      signingDate: new Date(Date.now() + 30 * 60_000),
    });
    const futureResponse = await fetch(future);
    expect(futureResponse.status).toBe(403);
    expect(await errorCode(futureResponse)).toBe('AccessDenied');

    // maxAttempts 1: the SDK would otherwise correct its clock from the error and retry.
    const skewed = storageClient(runtime.storageUrl, credentials, {
      systemClockOffset: -20 * 60_000,
      maxAttempts: 1,
    });
    await expect(skewed.send(command)).rejects.toMatchObject({
      name: 'RequestTimeTooSkewed',
      $metadata: { httpStatusCode: 403 },
    });
  });

  it('stores through an upload URL only the object, method, type, length and precondition it was signed for', async () => {
    const noteId = randomUUID();
    const audio = randomBytes(1000);
    const target = await uploadTargetFor(alice, noteId, audio.length, 'audio/wav');
    expect(target.headers).toEqual({ 'Content-Type': 'audio/wav', 'If-None-Match': '*' });
    const url = new URL(target.url);
    const aliceAudioKey = decodeURIComponent(url.pathname.slice(`/${bucket}/`.length));

    const attempts: Array<{ what: string; url: string; init: RequestInit; code: string; status?: number }> = [
      {
        what: "the key edited to another account's recording",
        url: target.url.replace(url.pathname, `/${bucket}/${bobAudioKey}`),
        init: { method: 'PUT', headers: target.headers, body: audio },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: "the key edited to another account's recording, read",
        url: target.url.replace(url.pathname, `/${bucket}/${bobAudioKey}`),
        init: { method: 'GET' },
        code: 'SignatureDoesNotMatch',
      },
      { what: 'GET instead of PUT', url: target.url, init: { method: 'GET' }, code: 'SignatureDoesNotMatch' },
      {
        what: 'DELETE instead of PUT',
        url: target.url,
        init: { method: 'DELETE' },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'a body longer than the signed Content-Length',
        url: target.url,
        init: { method: 'PUT', headers: target.headers, body: Buffer.concat([audio, Buffer.from('x')]) },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'another Content-Type',
        url: target.url,
        init: { method: 'PUT', headers: { ...target.headers, 'Content-Type': 'audio/mpeg' }, body: audio },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'no If-None-Match',
        url: target.url,
        init: { method: 'PUT', headers: { 'Content-Type': 'audio/wav' }, body: audio },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'a made-up signature',
        url: target.url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`),
        init: { method: 'PUT', headers: target.headers, body: audio },
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'a chunked body without Content-Length',
        url: target.url,
        init: {
          method: 'PUT',
          headers: target.headers,
          body: new Blob([audio]).stream(),
          duplex: 'half',
        } as RequestInit,
        code: 'SignatureDoesNotMatch',
      },
      {
        what: 'an unsigned header that would copy another object',
        url: target.url,
        init: {
          method: 'PUT',
          headers: { ...target.headers, 'x-amz-copy-source': `${bucket}/${bobAudioKey}` },
          body: audio,
        },
        code: 'AccessDenied',
      },
    ];
    for (const attempt of attempts) {
      const response = await fetch(attempt.url, attempt.init);
      expect(response.status, attempt.what).toBe(403);
      expect(await errorCode(response), attempt.what).toBe(attempt.code);
    }
    expect(await storedBytes(s3, bucket, aliceAudioKey)).toBeNull();
    await expectBobUntouched();

    const upload = await fetch(target.url, { method: 'PUT', headers: target.headers, body: audio });
    expect(upload.status).toBe(200);
    expect(sha256((await storedBytes(s3, bucket, aliceAudioKey)) ?? '')).toBe(sha256(audio));
  });

  it("reads through a download URL only its own object: the key edited to another account's transcript is refused", async () => {
    const aliceKey = objectKeys.transcription(await accountIdOf(alice), randomUUID());
    await putBytes(s3, bucket, aliceKey, '{"full_text":"alice"}');
    // The same adapter and call that issue podcast download URLs.
    const { url } = await getServices().blobs.presignDownload(aliceKey, 'transcript.json');
    expect(await (await fetch(url)).text()).toBe('{"full_text":"alice"}');

    const path = new URL(url).pathname;
    for (const edited of [
      url.replace(path, `/${bucket}/${bobTranscriptKey}`),
      url.replace(path, `/${bucket}`).replace('?', '?list-type=2&'),
    ]) {
      const response = await fetch(edited);
      expect(response.status).toBe(403);
      const body = await response.text();
      expect(body).toContain('<Code>SignatureDoesNotMatch</Code>');
      expect(body).not.toContain("bob's private words");
    }
  });

  it('accepts requests signed by an independent Signature V4 implementation (curl --aws-sigv4)', async () => {
    const key = objectKeys.transcription(await accountIdOf(alice), randomUUID());
    const signing = [
      '--aws-sigv4',
      'aws:amz:us-east-1:s3',
      '--user',
      `${credentials.accessKeyId}:${credentials.secretAccessKey}`,
      '-H',
      'x-amz-content-sha256: UNSIGNED-PAYLOAD',
      '-s',
      '-w',
      '\n%{http_code}',
    ];
    const curl = async (...args: string[]) =>
      (await promisify(execFile)('curl', [...signing, ...args])).stdout;
    expect(await curl('-X', 'PUT', '--data-binary', 'signed by curl', objectUrl(key))).toMatch(/\n200$/);
    expect(await curl(objectUrl(key))).toBe('signed by curl\n200');
    expect(await curl(`${runtime.storageUrl}/${bucket}?list-type=2`)).toContain(`<Key>${key}</Key>`);
    const wrong = signing.map((arg) =>
      arg.startsWith(credentials.accessKeyId) ? `${credentials.accessKeyId}:wrong` : arg,
    );
    const refused = await promisify(execFile)('curl', [...wrong, objectUrl(key)]);
    expect(refused.stdout).toMatch(/SignatureDoesNotMatch[\s\S]*\n403$/);
  });

  it('lists a prefix page by page with signed ListObjectsV2 and its continuation tokens, as S3 does', async () => {
    const prefix = `${objectKeys.audio(await accountIdOf(alice), randomUUID())}-pages/`;
    const keys = ['a', 'b c', 'd+e', 'f&g', 'h'].map((name) => `${prefix}${name}`);
    for (const key of keys) await putBytes(s3, bucket, key, key);
    const listed: string[] = [];
    const pages: number[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 2, ContinuationToken: token }),
      );
      pages.push(page.KeyCount ?? -1);
      listed.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      expect(page.IsTruncated).toBe(page.NextContinuationToken !== undefined);
      token = page.NextContinuationToken;
    } while (token);
    expect(pages).toEqual([2, 2, 1]);
    expect(listed).toEqual([...keys].sort());
    // With a delimiter, keys and common prefixes fill a page together, and no prefix comes twice.
    for (const key of [`${prefix}dir/1`, `${prefix}dir/2`, `${prefix}zdir/1`])
      await putBytes(s3, bucket, key, key);
    const entries: string[] = [];
    token = undefined;
    do {
      const page: ListObjectsV2CommandOutput = await s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          Delimiter: '/',
          MaxKeys: 2,
          ContinuationToken: token,
        }),
      );
      const names = [
        ...(page.Contents ?? []).map((object) => object.Key ?? ''),
        ...(page.CommonPrefixes ?? []).map((common) => common.Prefix ?? ''),
      ];
      expect(names.length).toBeLessThanOrEqual(2);
      entries.push(...names);
      token = page.NextContinuationToken;
    } while (token);
    expect(entries.sort()).toEqual([...keys, `${prefix}dir/`, `${prefix}zdir/`].sort());
    // A token this store did not make is refused, as S3 refuses one it did not make.
    await expect(
      s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: 'bm90IG91cnM' })),
    ).rejects.toMatchObject({ name: 'InvalidArgument', $metadata: { httpStatusCode: 400 } });
    await expect(s3.send(new ListObjectsV2Command({ Bucket: `${bucket}-none` }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
  });

  it('answers 400 to a request with two Host headers, even one whose first Host its signature covers', async () => {
    const url = new URL(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: bobTranscriptKey }), {
        expiresIn: 60,
      }),
    );
    const send = (hosts: string[]) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          const host = hosts.map((value) => `Host: ${value}\r\n`).join('');
          socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
        });
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk.toString('utf8');
        });
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    // The same signed request with one Host is served: the 400 is for the second header alone.
    expect(await send([url.host])).toMatch(/^HTTP\/1\.1 200 /);
    const twice = await send([url.host, 'evil.example']);
    expect(twice).toMatch(/^HTTP\/1\.1 400 /);
    expect(twice).toContain('<Code>InvalidRequest</Code>');
    expect(twice).not.toContain('private words');
  });

  it('refuses a header-signed upload whose body does not match its declared SHA-256, and stores nothing', async () => {
    const key = objectKeys.transcription(await accountIdOf(alice), randomUUID());
    const declared = '{"full_text":"what was signed"}';
    const sent = '{"full_text":"what was sent!!"}';
    expect(sent.length).toBe(declared.length);

    const mismatch = await signedFetch({
      url: objectUrl(key),
      method: 'PUT',
      credentials,
      headers: { 'content-type': 'application/json', 'content-length': String(sent.length) },
      signedBody: declared,
      body: sent,
    });
    expect(mismatch.status).toBe(400);
    expect(await errorCode(mismatch)).toBe('XAmzContentSHA256Mismatch');
    expect(await storedBytes(s3, bucket, key)).toBeNull();

    const matching = await signedFetch({
      url: objectUrl(key),
      method: 'PUT',
      credentials,
      headers: { 'content-type': 'application/json', 'content-length': String(declared.length) },
      body: declared,
    });
    expect(matching.status).toBe(200);
    expect((await storedBytes(s3, bucket, key))?.toString('utf8')).toBe(declared);
  });
});

describe('object storage CORS', () => {
  const preflight = (origin: string, method = 'PUT') =>
    fetch(objectUrl('accounts/x/notes/y/audio'), {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'content-type,if-none-match',
      },
    });

  it("grants the service's own origin (127.0.0.1 and localhost) and the configured origins", async () => {
    const port = new URL(runtime.apiUrl).port;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, CONFIGURED_ORIGIN]) {
      const response = await preflight(origin);
      expect(response.status, origin).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(response.headers.get('access-control-allow-headers')).toBe('content-type,if-none-match');
    }
  });

  it('gives any other origin no grant, on preflights and on signed requests alike', async () => {
    const port = new URL(runtime.apiUrl).port;
    for (const origin of ['https://evil.example', `http://127.0.0.1:${Number(port) + 100}`, 'null']) {
      const response = await preflight(origin);
      expect(response.status, origin).toBe(403);
      expect(await errorCode(response)).toBe('AccessForbidden');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }

    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: bobTranscriptKey }));
    const foreign = await fetch(url, { headers: { Origin: 'https://evil.example' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const own = await fetch(url, { headers: { Origin: `http://localhost:${port}` } });
    expect(own.headers.get('access-control-allow-origin')).toBe(`http://localhost:${port}`);
  });
});

describe('the database and queue ports', () => {
  it('answer a request without the local key, or declaring a body past the limit, before reading its body', async () => {
    const { dynamodb, sqs } = runtime.info.endpoints;
    /** Sends the headers and 1 KiB of a body declared 32 MiB long, and reads what comes back. */
    const answerToAStartedBody = (endpoint: string, headers: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(endpoint);
        const socket = connect(Number(url.port), url.hostname, () => {
          const lines = Object.entries({
            host: url.host,
            ...headers,
            'content-length': String(32 * 1024 * 1024),
          })
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('');
          socket.write(`POST / HTTP/1.1\r\n${lines}\r\n`);
          socket.write('{'.padEnd(1024, ' '));
        });
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk.toString('utf8');
        });
        // The rest of the body is never sent: only an answer given before reading it ends this.
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const target = {
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      'content-type': 'application/x-amz-json-1.0',
    };
    expect(await answerToAStartedBody(dynamodb, target)).toMatch(
      /^HTTP\/1\.1 400 [\s\S]*MissingAuthenticationToken/,
    );
    expect(await answerToAStartedBody(sqs, { ...target, 'x-amz-target': 'AmazonSQS.ListQueues' })).toMatch(
      /^HTTP\/1\.1 403 /,
    );
    const wrongKey = await signedHeaders({
      url: dynamodb,
      method: 'POST',
      service: 'dynamodb',
      credentials: { accessKeyId: 'LKNOTTHELOCALKEY0000', secretAccessKey: credentials.secretAccessKey },
      headers: target,
      body: '{}',
    });
    expect(await answerToAStartedBody(dynamodb, wrongKey)).toMatch(/UnrecognizedClientException/);
    // With the right key, a declared length past DynamoDB's largest request is refused unread too.
    const rightKey = await signedHeaders({
      url: dynamodb,
      method: 'POST',
      service: 'dynamodb',
      credentials,
      headers: target,
      body: '{}',
    });
    expect(await answerToAStartedBody(dynamodb, rightKey)).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('refuse unsigned requests, other secrets and unknown keys, and serve the local credentials', async () => {
    const { dynamodb, sqs } = runtime.info.endpoints;
    const unsignedDb = await fetch(dynamodb, {
      method: 'POST',
      headers: {
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        'content-type': 'application/x-amz-json-1.0',
      },
      body: '{}',
    });
    expect(unsignedDb.status).toBe(400);
    expect(((await unsignedDb.json()) as { __type: string }).__type).toContain('MissingAuthenticationToken');
    const unsignedSqs = await fetch(sqs, {
      method: 'POST',
      headers: { 'x-amz-target': 'AmazonSQS.ListQueues', 'content-type': 'application/x-amz-json-1.0' },
      body: '{}',
    });
    expect(unsignedSqs.status).toBe(403);
    expect(await unsignedSqs.text()).not.toContain('QueueUrls');

    const other = [
      {
        credentials: { ...credentials, secretAccessKey: 'y'.repeat(40) },
        db: 'InvalidSignatureException',
        queue: 'SignatureDoesNotMatch',
      },
      {
        credentials: { accessKeyId: 'LKNOTTHELOCALKEY0000', secretAccessKey: credentials.secretAccessKey },
        db: 'UnrecognizedClientException',
        queue: 'InvalidClientTokenId',
      },
    ];
    for (const { credentials: wrong, db, queue } of other) {
      await expect(
        new DynamoDBClient(localAwsClientConfig(dynamodb, wrong)).send(new ListTablesCommand({})),
      ).rejects.toMatchObject({ name: db });
      await expect(
        new SQSClient(localAwsClientConfig(sqs, wrong)).send(new ListQueuesCommand({})),
      ).rejects.toMatchObject({ name: queue });
    }

    // A signed request whose body was swapped after signing does not run either.
    const swapped = await signedFetch({
      url: dynamodb,
      method: 'POST',
      service: 'dynamodb',
      credentials,
      headers: {
        'x-amz-target': 'DynamoDB_20120810.CreateTable',
        'content-type': 'application/x-amz-json-1.0',
      },
      signedBody: '{}',
      body: JSON.stringify(
        new CreateTableCommand({ TableName: 'x', KeySchema: [], AttributeDefinitions: [] }).input,
      ),
    });
    expect(swapped.status).toBe(400);
    expect(((await swapped.json()) as { __type: string }).__type).toContain('InvalidSignatureException');

    const { TableNames } = await new DynamoDBClient(localAwsClientConfig(dynamodb, credentials)).send(
      new ListTablesCommand({}),
    );
    expect(TableNames).toEqual([runtime.info.table_name]);
    const { QueueUrls } = await new SQSClient(localAwsClientConfig(sqs, credentials)).send(
      new ListQueuesCommand({}),
    );
    expect(QueueUrls?.sort()).toEqual(Object.values(runtime.info.queue_urls).sort());
  });
});
