import { getArtifact } from '#src/domain/artifact-jobs.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { artifactParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getNoteArtifact',
  { params: artifactParams },
  async ({ caller, params, services }) => {
    const result = await getArtifact(
      services,
      caller.account.account_id,
      params.note_id,
      params.artifact_kind,
    );
    return result.kind === 'ready' ? jsonResponse(200, result.artifact) : jsonResponse(202, result.job);
  },
);
