import type { ArtifactDrafts, ArtifactKind } from '../../domain/artifacts.ts';
import type { ArtifactEngine, ArtifactRequest } from '../../ports/artifact-engine.ts';
import { artifactTask } from './artifact-task.ts';
import { BedrockConverse, type BedrockOptions, type ConverseClient } from './bedrock-converse.ts';

export type BedrockArtifactOptions = BedrockOptions;

/** Artifacts through the Bedrock Converse API: a forced tool call per kind (see `bedrock-converse.ts`). */
export class BedrockArtifactEngine implements ArtifactEngine {
  readonly name: string;
  /** The collections' instructions go into the prompt (prompt.ts, artifact-prompt.ts). */
  readonly followsInstructions = true;
  private readonly bedrock: BedrockConverse;

  constructor(
    client: ConverseClient,
    private readonly options: BedrockArtifactOptions,
  ) {
    this.bedrock = new BedrockConverse(client, options);
    this.name = this.bedrock.name;
  }

  generateArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): Promise<ArtifactDrafts[K]> {
    return this.bedrock.run(artifactTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}
