import {
  type ReceivedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../../support/scripted-server.ts';

/**
 * Amazon Transcribe as its API answers (JSON 1.1 protocol: `X-Amz-Target: Transcribe.<Operation>`):
 * StartTranscriptionJob returns the job IN_PROGRESS, as AWS does; the job's output document is
 * written by the test, where the request said, before it sends the completion event. Every request
 * is kept to be checked. Other operations get the error AWS gives for an unknown operation.
 */
export type TranscribeStandIn = ScriptedServer<Record<string, unknown>>;

const JSON_11 = { 'content-type': 'application/x-amz-json-1.1' };

export function startTranscribeStandIn(): Promise<TranscribeStandIn> {
  return startScriptedServer((request: ReceivedRequest) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (target !== 'Transcribe.StartTranscriptionJob') {
      return {
        status: 400,
        headers: JSON_11,
        body: { __type: 'UnknownOperationException', message: `Unknown operation ${target}` },
      };
    }
    const input = request.body;
    const now = Date.now() / 1000;
    return {
      status: 200,
      headers: JSON_11,
      body: {
        TranscriptionJob: {
          TranscriptionJobName: input.TranscriptionJobName,
          TranscriptionJobStatus: 'IN_PROGRESS',
          LanguageCode: input.LanguageCode,
          Media: input.Media,
          Settings: input.Settings,
          StartTime: now,
          CreationTime: now,
        },
      },
    };
  });
}

/** The StartTranscriptionJob requests received, oldest first. */
export function startedJobs(standIn: TranscribeStandIn): Array<Record<string, unknown>> {
  return standIn.received
    .filter((request) => request.headers['x-amz-target'] === 'Transcribe.StartTranscriptionJob')
    .map((request) => request.body);
}
