import { Duration } from 'aws-cdk-lib';
import type { EventWorkerName, OperationId, PublicRouteName, QueueWorkerName } from '../src/routes.ts';

export interface FunctionSizing {
  timeout: Duration;
  memorySize: number;
}

/**
 * API handlers: well under HTTP API's 30 s integration timeout, so a stuck call ends in the function
 * (with a log line) rather than as an anonymous 503. Lambda gives CPU in proportion to memory, and
 * 1 GB roughly halves a cold start compared with 256 MB at a similar price per request.
 */
const apiFunctionSizing: FunctionSizing = { timeout: Duration.seconds(10), memorySize: 1024 };

/**
 * askWorkspace runs retrieval and a model call inside the request: it gets almost all of the 30 s
 * (its provider calls retry twice within that, see src/wiring/ask-services.ts); so does the MCP endpoint,
 * whose tools include askWorkspace.
 */
export function apiSizingOf(name: OperationId | PublicRouteName): FunctionSizing {
  return name === 'askWorkspace' || name === 'mcp'
    ? { ...apiFunctionSizing, timeout: Duration.seconds(28) }
    : apiFunctionSizing;
}

/** One entry per worker of src/routes.ts: a new worker does not compile until it is sized here. */
export const workerSizing: Record<QueueWorkerName | EventWorkerName, FunctionSizing> = {
  // Takes an upload: a storage HEAD, a few table writes and one message sent.
  uploadReceived: { timeout: Duration.seconds(30), memorySize: 512 },
  uploadsDeadLetter: { timeout: Duration.seconds(30), memorySize: 512 },
  // On AWS it only starts a Transcribe job (seconds; transcriptionCompleted takes the result). The
  // minute covers a cold start and the SDK's retries, and keeps the queue's visibility at 6 minutes.
  transcriptionWorker: { timeout: Duration.minutes(1), memorySize: 1024 },
  // Marks a dead-lettered job failed: a few table writes.
  transcriptionDeadLetter: { timeout: Duration.seconds(30), memorySize: 512 },
  // Reads Transcribe's output JSON (large for long recordings), normalises it, writes the transcript.
  transcriptionCompleted: { timeout: Duration.minutes(2), memorySize: 1024 },
  // Several Bedrock calls on a long transcript, then Polly for a podcast: minutes, up to Lambda's 15.
  generationWorker: { timeout: Duration.minutes(15), memorySize: 1024 },
  generationDeadLetter: { timeout: Duration.seconds(30), memorySize: 512 },
  // Reads the jobs in flight and, for the few that need it, a Transcribe call and a transcript to
  // save (as transcriptionCompleted): minutes at most, well within its 15-minute schedule.
  reconcileJobs: { timeout: Duration.minutes(5), memorySize: 1024 },
  // Reads the retaining collections' old notes and deletes what is due: table reads and writes, and
  // for each note deleted its objects (as deleteNote). Minutes at most; the next run takes the rest.
  applyRetention: { timeout: Duration.minutes(10), memorySize: 512 },
};
