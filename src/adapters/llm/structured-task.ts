/** A JSON schema as sent to a provider (see `schema.ts`). */
export type JsonSchema = Record<string, unknown>;

/**
 * One piece of structured output asked of a model, whatever the provider: Insights, an artifact, an
 * answer. The provider adapters (`bedrock-converse.ts`, `openai-chat.ts`) own the mechanics (request,
 * retries, structured-output mode, one re-ask); a task owns the words and the checking.
 */
export interface StructuredTask<T> {
  /** What is asked for, for error messages: `Insights`, `epiphany artifact`, `answer`. */
  label: string;
  system: string;
  /** The first user turn: the material (transcript, passages) and the request. */
  user: string;
  /** Bedrock: the one tool the model is made to call, e.g. `record_insights`. */
  toolName: string;
  toolDescription: string;
  /** OpenAI `response_format.json_schema.name`, e.g. `insights` (`^[a-zA-Z0-9_-]{1,64}$`). */
  schemaName: string;
  jsonSchema: JsonSchema;
  /**
   * Checks the model's output (a tool input object, or the JSON text of a chat answer) and returns
   * the safe value. Throws `GenerationFailedError` whose message names what is wrong, never quoting
   * the output; that message is what the model is told when it is asked once more.
   */
  read(output: unknown): T;
}
