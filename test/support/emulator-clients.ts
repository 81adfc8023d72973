import type { AwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { localAwsClientConfig } from '../../src/adapters/aws-client-config.ts';
import { readLocalCredentials } from '../../src/local/local-credentials.ts';

/**
 * SDK settings for a client of one of the runtime's emulator ports, signed with the credentials the
 * runtime generated in its data directory (the ports refuse anything else).
 */
export async function emulatorClientConfig(dataDir: string, endpoint: string): Promise<AwsClientConfig> {
  return localAwsClientConfig(endpoint, await readLocalCredentials(dataDir));
}
