import type { InsightsContent } from '../../domain/insights.ts';
import type { InsightsRequest } from '../../ports/insights-engine.ts';
import { buildInsightsPrompt, type PromptOptions } from './prompt.ts';
import { insightsJsonSchema } from './schema.ts';
import type { StructuredTask } from './structured-task.ts';
import { validateInsights } from './validate.ts';

export const INSIGHTS_TOOL = 'record_insights';

/** Insights as a structured task: the prompt, the schema, and the check against the segments shown. */
export function insightsTask(
  request: InsightsRequest,
  options: PromptOptions = {},
): StructuredTask<InsightsContent> {
  const prompt = buildInsightsPrompt(request, options);
  return {
    label: 'Insights',
    system: prompt.system,
    user: prompt.user,
    toolName: INSIGHTS_TOOL,
    toolDescription: 'Record the Insights extracted from the transcript.',
    schemaName: 'insights',
    jsonSchema: insightsJsonSchema,
    read: (output) => validateInsights(output, request.transcription, prompt.citable),
  };
}
