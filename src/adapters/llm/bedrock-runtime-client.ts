import type {
  BedrockRuntimeClient,
  BedrockRuntimeClientConfig,
  ConverseCommandInput,
  ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { traced } from '../../observability.ts';
import { onFirstUse } from '../loaded-on-first-use.ts';
import type { ConverseClient } from './bedrock-converse.ts';

/**
 * The AWS SDK's Bedrock Runtime client behind `ConverseClient`, imported on the first call: in a
 * Lambda bundle the SDK client (with the event-stream code its constructor wires for the streaming
 * operations, which Converse does not use) is a chunk of its own, read by the first generation or
 * answer and not at cold start. Traced on Lambda, as every AWS client.
 */
export class BedrockRuntimeLoadedOnFirstUse implements ConverseClient {
  private client: BedrockRuntimeClient | undefined;
  private readonly loaded = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-bedrock-runtime');
    this.client = traced(new sdk.BedrockRuntimeClient(this.config));
    return { client: this.client, ConverseCommand: sdk.ConverseCommand };
  });

  constructor(private readonly config: BedrockRuntimeClientConfig) {}

  async converse(
    input: ConverseCommandInput,
    options?: { abortSignal?: AbortSignal },
  ): Promise<ConverseCommandOutput> {
    const { client, ConverseCommand } = await this.loaded();
    return client.send(new ConverseCommand(input), options);
  }

  /** Closes the client's HTTP/2 connections, if it was ever loaded. */
  destroy(): void {
    this.client?.destroy();
  }
}
