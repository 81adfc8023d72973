import { randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, EventBridgeEvent, SQSEvent } from 'aws-lambda';
import { toSqsRecord } from '../../../src/local/sqs-event-source.ts';

/** The events AWS hands the functions, in the documented shapes. */

export interface HttpRequest {
  method: string;
  /** The route as API Gateway knows it: `/v1/notes/{note_id}`. */
  route: string;
  pathParameters?: Record<string, string>;
  apiKey: string;
  body?: unknown;
}

/** An API Gateway HTTP API request (payload format 2.0), as it reaches a route's function. */
export function httpApiEvent({
  method,
  route,
  pathParameters = {},
  apiKey,
  body,
}: HttpRequest): APIGatewayProxyEventV2 {
  const rawPath = route.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(pathParameters[name] ?? ''),
  );
  const routeKey = `${method} ${route}`;
  const now = Date.now();
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${apiKey}`,
    host: 'abc123.execute-api.us-east-1.amazonaws.com',
    'user-agent': 'deployed-artifact-test',
    'x-forwarded-proto': 'https',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers,
    ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: '111122223333',
      apiId: 'abc123',
      domainName: headers.host as string,
      domainPrefix: 'abc123',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '198.51.100.7',
        userAgent: 'deployed-artifact-test',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
  };
}

/** What Lambda's SQS event source mapping delivers for messages received from a queue. */
export function sqsEvent(messages: Message[], queueArn: string): SQSEvent {
  return { Records: messages.map((message) => toSqsRecord(message, queueArn, 'us-east-1')) };
}

/** EventBridge's "Transcribe Job State Change" event (Amazon Transcribe user guide, "Monitoring with EventBridge"). */
export function transcribeJobStateChange(
  jobName: string,
  status: 'COMPLETED' | 'FAILED',
  failureReason?: string,
): EventBridgeEvent<'Transcribe Job State Change', Record<string, string>> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Transcribe Job State Change',
    source: 'aws.transcribe',
    account: '111122223333',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [],
    detail: {
      TranscriptionJobName: jobName,
      TranscriptionJobStatus: status,
      ...(failureReason ? { FailureReason: failureReason } : {}),
    },
  };
}

/** EventBridge's event for a scheduled rule (EventBridge user guide, "Creating a rule that runs on a schedule"). */
export function scheduledEvent(ruleName: string): EventBridgeEvent<'Scheduled Event', Record<string, never>> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '111122223333',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:111122223333:rule/${ruleName}`],
    detail: {},
  };
}
