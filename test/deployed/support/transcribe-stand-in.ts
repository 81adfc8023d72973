import {
  type ReceivedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../../support/scripted-server.ts';

/**
 * Amazon Transcribe as its API answers (JSON 1.1 protocol: `X-Amz-Target: Transcribe.<Operation>`):
 * StartTranscriptionJob returns the job IN_PROGRESS, as AWS does; the job's output document is
 * written by the test, where the request said, before it sends the completion event.
 * GetTranscriptionJob answers a started job IN_PROGRESS until the test ends it (`ended`), and a name
 * it never started with the BadRequestException AWS gives. Every request is kept to be checked.
 * Other operations get the error AWS gives for an unknown operation.
 */
export type TranscribeStandIn = ScriptedServer<Record<string, unknown>> & {
  /** The status GetTranscriptionJob reports for a started job once the test has ended it. */
  ended: Map<string, 'COMPLETED' | 'FAILED'>;
};

const JSON_11 = { 'content-type': 'application/x-amz-json-1.1' };

export async function startTranscribeStandIn(): Promise<TranscribeStandIn> {
  const ended = new Map<string, 'COMPLETED' | 'FAILED'>();
  const started = new Map<string, Record<string, unknown>>();
  const server = await startScriptedServer((request: ReceivedRequest) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const input = request.body;
    if (target === 'Transcribe.StartTranscriptionJob') {
      const now = Date.now() / 1000;
      const job = {
        TranscriptionJobName: input.TranscriptionJobName,
        TranscriptionJobStatus: 'IN_PROGRESS',
        LanguageCode: input.LanguageCode,
        Media: input.Media,
        Settings: input.Settings,
        StartTime: now,
        CreationTime: now,
      };
      started.set(String(input.TranscriptionJobName), job);
      return { status: 200, headers: JSON_11, body: { TranscriptionJob: job } };
    }
    if (target === 'Transcribe.GetTranscriptionJob') {
      const name = String(input.TranscriptionJobName);
      const job = started.get(name);
      if (!job) {
        return {
          status: 400,
          headers: JSON_11,
          body: {
            __type: 'BadRequestException',
            Message: "The requested job couldn't be found. Check the job name and try your request again.",
          },
        };
      }
      const status = ended.get(name);
      return {
        status: 200,
        headers: JSON_11,
        body: {
          TranscriptionJob: {
            ...job,
            TranscriptionJobStatus: status ?? 'IN_PROGRESS',
            ...(status ? { CompletionTime: Date.now() / 1000, Transcript: {} } : {}),
          },
        },
      };
    }
    return {
      status: 400,
      headers: JSON_11,
      body: { __type: 'UnknownOperationException', message: `Unknown operation ${target}` },
    };
  });
  return Object.assign(server, { ended });
}

/** The StartTranscriptionJob requests received, oldest first. */
export function startedJobs(standIn: TranscribeStandIn): Array<Record<string, unknown>> {
  return standIn.received
    .filter((request) => request.headers['x-amz-target'] === 'Transcribe.StartTranscriptionJob')
    .map((request) => request.body);
}
