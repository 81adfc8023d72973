import { logger } from '../../logging.ts';
import { ProviderMisconfiguredError } from '../../ports/generation-errors.ts';

/**
 * Bedrock exceptions that mean the configured model cannot be used at all (denied, unknown, retired,
 * or named in a form the account cannot invoke): retrying cannot help and only the operator can fix
 * it. Each reason says what to change. Sources: the Converse API's documented errors
 * (AccessDeniedException, ResourceNotFoundException, ValidationException) and the messages Bedrock
 * sends with them for model access, Legacy / end-of-life models and on-demand invocation of models
 * that need an inference profile.
 */
const MODEL_PROBLEMS: Array<{ exception: string; message?: RegExp; reason: (modelId: string) => string }> = [
  {
    exception: 'ValidationException',
    message: /on-demand throughput|inference profile/i,
    reason: (id) =>
      `model ${id} can only be invoked through an inference profile. Set the model to its profile ID (us., eu., apac., jp., global. followed by the model ID) and redeploy`,
  },
  {
    exception: 'ValidationException',
    message: /end of (its )?life|\blegacy\b|no longer (available|supported)|deprecated/i,
    reason: (id) =>
      `model ${id} has reached end of life on Amazon Bedrock. Choose a current model or inference profile (see the Bedrock model lifecycle page) and redeploy`,
  },
  {
    exception: 'ValidationException',
    message:
      /model identifier is invalid|invalid model|model id|model (is )?not (supported|available|found)/i,
    reason: (id) =>
      `Bedrock does not accept ${id} as a model in this region. Check the model or inference profile ID and the region, and redeploy`,
  },
  {
    exception: 'ResourceNotFoundException',
    reason: (id) =>
      `Bedrock has no model ${id} this account can use in this region (unknown ID, not offered here, or a Legacy model the account has not used). Choose a current model or inference profile available in the region and redeploy`,
  },
  {
    exception: 'AccessDeniedException',
    reason: (id) =>
      `Bedrock denied access to ${id}. Enable access to the model for this account (Bedrock console, model access / model catalog), and check that the functions' IAM policy names the model, or for an inference profile the profile and every region it routes to (deploy context bedrockModelIds, bedrockProfileRegions)`,
  },
];

/**
 * The operator-facing error for a model that cannot be used, or undefined when `error` is something
 * else. Logs AWS's own message (it names the model, the role or the resource, never the prompt).
 */
export function modelProblem(error: unknown, modelId: string): ProviderMisconfiguredError | undefined {
  if (!(error instanceof Error)) return undefined;
  const problem = MODEL_PROBLEMS.find(
    ({ exception, message }) => error.name === exception && (!message || message.test(error.message)),
  );
  if (!problem) return undefined;
  logger.error('Bedrock model cannot be used', {
    modelId,
    exception: error.name,
    awsMessage: error.message.slice(0, 1000),
  });
  return new ProviderMisconfiguredError(
    // No closing period: the job workers append their own sentence after the detail.
    `The text engine is not configured correctly: ${problem.reason(modelId)}`,
    { cause: error },
  );
}
