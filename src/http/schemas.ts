import * as z from 'zod';

/** Request schemas of the REST operations; openapi.yaml describes the same shapes. */

const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID')
  .transform((id) => id.toLowerCase());

export const noteParams = z.object({ note_id: uuid });

export const title = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const AUDIO_CONTENT_TYPES = [
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/m4a',
  'audio/x-m4a',
  'audio/aac',
  'audio/ogg',
  'audio/opus',
  'audio/webm',
  'audio/flac',
  'audio/x-flac',
] as const;

/** The S3 single-PUT limit: a presigned upload cannot be larger. */
export const MAX_AUDIO_BYTES = 5 * 1024 ** 3;

export const submitTranscriptionBody = z.strictObject({
  title,
  content_type: z.enum(AUDIO_CONTENT_TYPES, { error: `must be one of ${AUDIO_CONTENT_TYPES.join(', ')}` }),
  // The upper bound is checked by the operation: too large is 413, not a schema error.
  size_bytes: z.number().int().min(1),
});

export const updateNoteBody = z
  .strictObject({
    title: title.optional(),
    state: z.enum(['active', 'trashed']).optional(),
  })
  .refine((body) => body.title !== undefined || body.state !== undefined, {
    message: 'give at least one of title, state',
  });

export const listNotesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(1024).optional(),
  state: z.enum(['active', 'trashed']).default('active'),
});
