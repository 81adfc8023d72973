import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { TranscriptionView } from '../domain/transcript-exports.ts';
import { transcriptEntityTag } from '../domain/transcript-tags.ts';
import { withTag } from './conditional-requests.ts';
import { jsonResponse } from './response.ts';

/** A transcript as JSON (200) with its ETag: the one corrections send back as If-Match. */
export function transcriptResponse(transcription: TranscriptionView): APIGatewayProxyStructuredResultV2 {
  return withTag(jsonResponse(200, transcription), transcriptEntityTag(transcription));
}
