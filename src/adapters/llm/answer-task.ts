import type { AnswerDraft, AnswerRequest } from '../../ports/answer-engine.ts';
import { buildAnswerPrompt } from './answer-prompt.ts';
import { validateAnswer } from './answer-validate.ts';
import type { PromptOptions } from './prompt.ts';
import { answerJsonSchema } from './schema.ts';
import type { StructuredTask } from './structured-task.ts';

export const ANSWER_TOOL = 'record_answer';

/** An Ask answer as a structured task: the passages prompt, checked against the passages shown. */
export function answerTask(request: AnswerRequest, options: PromptOptions = {}): StructuredTask<AnswerDraft> {
  const prompt = buildAnswerPrompt(request, options);
  return {
    label: 'answer',
    system: prompt.system,
    user: prompt.user,
    toolName: ANSWER_TOOL,
    toolDescription: 'Record the answer to the question and the passages it cites.',
    schemaName: 'answer',
    jsonSchema: answerJsonSchema,
    read: (output) => validateAnswer(output, prompt.shown),
  };
}
