import type { OperationId } from '../../src/routes.ts';

/**
 * The AWS requests one call of each REST operation sends, in the state
 * test/integration/round-trips-per-operation.test.ts builds (a transcribed note with audio, Insights,
 * an artifact and a collection; the caller's API key already checked once by this process). The test
 * asserts `after` exactly; `before` is what the same test measured before issue 24. docs/benchmarks.md
 * carries this table as `roundTripTable()` renders it (the test checks that it does).
 */
export interface Calls {
  dynamodb: number;
  s3: number;
  sqs: number;
}

const calls = (dynamodb: number, s3 = 0, sqs = 0): Calls => ({ dynamodb, s3, sqs });

export const roundTrips: Record<OperationId, { before: Calls; after: Calls }> = {
  getCurrentAccount: { before: calls(2), after: calls(0) },
  listNotes: { before: calls(4), after: calls(2) },
  getNote: { before: calls(7, 2), after: calls(2, 2) },
  updateNote: { before: calls(20, 3), after: calls(13, 3) },
  deleteNote: { before: calls(11, 3), after: calls(4, 3) },
  submitTranscription: { before: calls(7), after: calls(3) },
  getTranscription: { before: calls(4, 1), after: calls(1, 1) },
  deleteTranscription: { before: calls(36, 8), after: calls(30, 9) },
  generateInsights: { before: calls(5, 0, 1), after: calls(2, 0, 1) },
  // Issue 40: a filed note's collections are read with the result (their instructions), beside the S3 read.
  getInsights: { before: calls(5, 1), after: calls(2, 1) },
  generateNoteArtifact: { before: calls(7, 1, 1), after: calls(2, 1, 1) },
  getNoteArtifact: { before: calls(5, 1), after: calls(2, 1) },
  askWorkspace: { before: calls(12, 3), after: calls(5, 3) },
  searchNotes: { before: calls(12, 3), after: calls(5, 3) },
  createCollection: { before: calls(5), after: calls(3) },
  listCollections: { before: calls(3), after: calls(1) },
  updateCollection: { before: calls(6), after: calls(4) },
  deleteCollection: { before: calls(7), after: calls(5) },
  addNoteToCollection: { before: calls(8), after: calls(3) },
  removeNoteFromCollection: { before: calls(6), after: calls(3) },
  listApiKeys: { before: calls(3), after: calls(1) },
  createApiKey: { before: calls(3), after: calls(1) },
  // Issue 35: the sessions the key signed in are read, and end with it.
  revokeApiKey: { before: calls(5), after: calls(3) },
  listSessions: { before: calls(2), after: calls(2) },
  endSession: { before: calls(2), after: calls(2) },
  endOtherSessions: { before: calls(2), after: calls(2) },
  getNoteAudio: { before: calls(3, 1), after: calls(1, 1) },
  editTranscription: { before: calls(30, 3), after: calls(25, 3) },
  undoTranscriptionEdit: { before: calls(30, 4), after: calls(25, 4) },
  // New with issue 37: no "before".
  findSimilarSegments: { before: calls(1, 2), after: calls(1, 2) },
  listVoiceProfiles: { before: calls(2), after: calls(2) },
  updateVoiceProfileSettings: { before: calls(3), after: calls(3) },
  createVoiceProfile: { before: calls(7, 2), after: calls(7, 2) },
  updateVoiceProfile: { before: calls(2), after: calls(2) },
  deleteVoiceProfile: { before: calls(2), after: calls(2) },
  reviewVoiceMatch: { before: calls(4, 2), after: calls(4, 2) },
};

const change = (before: number, after: number) => (before === after ? `${after}` : `${before} -> ${after}`);

/** The markdown table of docs/benchmarks.md, "Round trips per operation". */
export function roundTripTable(): string {
  const rows = Object.entries(roundTrips).map(
    ([operation, { before, after }]) =>
      `| ${operation} | ${change(before.dynamodb, after.dynamodb)} | ${change(before.s3, after.s3)} | ${change(before.sqs, after.sqs)} |`,
  );
  return ['| operation | DynamoDB | S3 | SQS |', '|---|---|---|---|', ...rows].join('\n');
}
