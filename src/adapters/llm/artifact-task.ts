import type { ArtifactDrafts, ArtifactKind } from '../../domain/artifacts.ts';
import type { ArtifactRequest } from '../../ports/artifact-engine.ts';
import { buildArtifactPrompt } from './artifact-prompt.ts';
import { shownSegments, validateArtifact } from './artifact-validate.ts';
import type { PromptOptions } from './prompt.ts';
import { artifactJsonSchemas } from './schema.ts';
import type { StructuredTask } from './structured-task.ts';

const NAMING: Record<ArtifactKind, { tool: string; schema: string; description: string }> = {
  epiphany: {
    tool: 'record_epiphany',
    schema: 'epiphany',
    description: 'Record the non-obvious connections found in the transcript, with verbatim evidence.',
  },
  deep_research: {
    tool: 'record_deep_research',
    schema: 'deep_research',
    description: 'Record the research brief drawn from the transcript, with verbatim evidence.',
  },
  podcast: {
    tool: 'record_podcast_script',
    schema: 'podcast_script',
    description: 'Record the two-host podcast script, each line citing the transcript lines it retells.',
  },
};

/** An artifact as a structured task: the kind's prompt and schema, checked against the segments shown. */
export function artifactTask<K extends ArtifactKind>(
  request: ArtifactRequest<K>,
  options: PromptOptions = {},
): StructuredTask<ArtifactDrafts[K]> {
  const prompt = buildArtifactPrompt(request, options);
  const shown = shownSegments(prompt.shown);
  const naming = NAMING[request.kind];
  return {
    label: `${request.kind} artifact`,
    system: prompt.system,
    user: prompt.user,
    toolName: naming.tool,
    toolDescription: naming.description,
    schemaName: naming.schema,
    jsonSchema: artifactJsonSchemas[request.kind],
    read: (output) => validateArtifact(request.kind, output, shown),
  };
}
