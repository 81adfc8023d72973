import { requestArtifact } from '#src/domain/artifact-jobs.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { artifactParams, generateArtifactBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'generateNoteArtifact',
  { params: artifactParams, body: generateArtifactBody, bodyOptional: true },
  async ({ caller, params, body, services }) => {
    const result = await requestArtifact(
      services,
      caller.account.account_id,
      params.note_id,
      params.artifact_kind,
      body ?? { language: 'auto', regenerate: false },
    );
    return result.kind === 'ready' ? jsonResponse(200, result.artifact) : jsonResponse(202, result.job);
  },
);
