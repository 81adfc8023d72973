import type { ArtifactDrafts, ArtifactKind } from '../../domain/artifacts.ts';
import type { ArtifactEngine, ArtifactRequest } from '../../ports/artifact-engine.ts';
import { artifactTask } from './artifact-task.ts';
import { OpenAiChat, type OpenAiChatOptions } from './openai-chat.ts';

export type OpenAiChatArtifactOptions = OpenAiChatOptions;

/** Artifacts through OpenAI-compatible chat completions with the kind's JSON schema (see `openai-chat.ts`). */
export class OpenAiChatArtifactEngine implements ArtifactEngine {
  readonly name: string;
  /** The collections' instructions go into the prompt (prompt.ts, artifact-prompt.ts). */
  readonly followsInstructions = true;
  private readonly chat: OpenAiChat;

  constructor(private readonly options: OpenAiChatArtifactOptions) {
    this.chat = new OpenAiChat(options);
    this.name = this.chat.name;
  }

  generateArtifact<K extends ArtifactKind>(request: ArtifactRequest<K>): Promise<ArtifactDrafts[K]> {
    return this.chat.run(artifactTask(request, { maxTranscriptTokens: this.options.maxTranscriptTokens }));
  }
}
