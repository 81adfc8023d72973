import { TRANSCRIPT_FORMATS, type TranscriptFormat } from '../domain/transcript-exports.ts';

const BY_MEDIA_TYPE: Record<string, TranscriptFormat> = {
  'application/json': 'json',
  'application/x-subrip': 'srt',
  'text/srt': 'srt',
  'text/vtt': 'vtt',
  'text/markdown': 'md',
};

/**
 * The transcript format a client asked for: the `format` query parameter wins; otherwise the first
 * media type of the Accept header that we can produce (quality values are not weighed: clients that
 * want an export name one type); otherwise JSON.
 */
export function transcriptFormat(
  query: TranscriptFormat | undefined,
  accept: string | undefined,
): TranscriptFormat {
  if (query) return query;
  for (const part of (accept ?? '').split(',')) {
    const mediaType = part.split(';')[0]?.trim().toLowerCase() ?? '';
    const format = BY_MEDIA_TYPE[mediaType];
    if (format) return format;
  }
  return 'json';
}

export function contentTypeOf(format: TranscriptFormat): string {
  return TRANSCRIPT_FORMATS[format];
}
