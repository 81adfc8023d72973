import { renderTranscript } from '#src/domain/transcript-exports.ts';
import { transcriptEntityTag } from '#src/domain/transcript-tags.ts';
import { getTranscription } from '#src/domain/transcription.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { withEntityTag } from '#src/http/conditional-requests.ts';
import { contentTypeOf, transcriptFormat } from '#src/http/content-negotiation.ts';
import { header } from '#src/http/request.ts';
import { jsonResponse, textResponse } from '#src/http/response.ts';
import { noteParams, transcriptionQuery } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getTranscription',
  { params: noteParams, query: transcriptionQuery },
  async ({ caller, params, query, services, event }) => {
    const result = await getTranscription(services, caller.account.account_id, params.note_id);
    // Not ready is always the JSON job status, whatever format was asked for.
    if (result.kind !== 'ready') return jsonResponse(202, result.job);
    const format = transcriptFormat(query.format, header(event, 'accept'));
    // Each format is its own representation with its own ETag.
    if (format === 'json') {
      return withEntityTag(
        event,
        jsonResponse(200, result.transcription),
        transcriptEntityTag(result.transcription),
      );
    }
    return withEntityTag(
      event,
      textResponse(200, renderTranscript(result.transcription, format, result.title), contentTypeOf(format)),
    );
  },
);
