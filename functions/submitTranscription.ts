import { PayloadTooLargeError } from '#src/domain/errors.ts';
import { requireReadableRecording } from '#src/domain/recording-types.ts';
import { submitTranscription } from '#src/domain/transcription.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { MAX_AUDIO_BYTES, noteParams, submitTranscriptionBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'submitTranscription',
  { params: noteParams, body: submitTranscriptionBody },
  async ({ caller, params, body, services }) => {
    if (body.size_bytes > MAX_AUDIO_BYTES) {
      throw new PayloadTooLargeError(`Recordings are limited to ${MAX_AUDIO_BYTES} bytes (5 GiB)`);
    }
    requireReadableRecording(services.recordingTypes, body.content_type);
    const result = await submitTranscription(services, caller.account.account_id, params.note_id, body);
    return jsonResponse(result.kind === 'accepted' ? 202 : 200, result.job);
  },
);
