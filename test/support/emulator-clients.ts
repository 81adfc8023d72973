import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { createDocumentClient } from '../../src/adapters/dynamodb/client.ts';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { readLocalCredentials } from '../../src/local/local-credentials.ts';

/**
 * SDK settings for a client of one of the runtime's emulator ports, signed with the credentials the
 * runtime generated in its data directory (the ports refuse anything else).
 */
export async function emulatorClientConfig(dataDir: string, endpoint: string): Promise<AwsClientConfig> {
  return localAwsClientConfig(endpoint, await readLocalCredentials(dataDir));
}

export interface TableUnderTest {
  emulators: Emulators;
  dataDir: string;
  /** A document client of the emulated DynamoDB, signed like the runtime's. */
  db: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

/** The runtime's emulators on a fresh data directory, for tests of one store against real DynamoDB semantics. */
export async function startTableUnderTest(name: string): Promise<TableUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), `notes-${name}-`));
  const emulators = await startEmulators({
    dataDir,
    storagePort: 0,
    queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
    log: () => undefined,
  });
  const db = createDocumentClient(await emulatorClientConfig(dataDir, emulators.endpoints.dynamodb));
  return {
    emulators,
    dataDir,
    db,
    stop: async () => {
      await emulators.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
