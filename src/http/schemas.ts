import * as z from 'zod';
import { ARTIFACT_KINDS } from '../domain/artifacts.ts';

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
  speakers_expected: z.number().int().min(1).max(10).optional(),
});

/** Keys are the labels the engines give (`Speaker 1`, `Speaker 2`, ...). */
const speakerNames = z
  .record(
    z.string().regex(/^Speaker [1-9][0-9]{0,2}$/, 'keys must be speaker labels such as "Speaker 1"'),
    z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullable(),
    // zod reports a bad key as "Invalid key in record"; say what a key must be.
    {
      error: (issue) =>
        issue.code === 'invalid_key' ? 'keys must be speaker labels such as "Speaker 1"' : undefined,
    },
  )
  .refine((names) => Object.keys(names).length <= 50, { message: 'at most 50 speakers' });

export const updateNoteBody = z
  .strictObject({
    title: title.optional(),
    state: z.enum(['active', 'trashed']).optional(),
    speaker_names: speakerNames.optional(),
  })
  .refine(
    (body) => body.title !== undefined || body.state !== undefined || body.speaker_names !== undefined,
    {
      message: 'give at least one of title, state, speaker_names',
    },
  );

export const transcriptionQuery = z.strictObject({
  format: z.enum(['json', 'srt', 'vtt', 'md']).optional(),
});

/** generateInsights takes no options yet: no body, or an empty object. */
export const generateInsightsBody = z.strictObject({});

export const listNotesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(1024).optional(),
  state: z.enum(['active', 'trashed']).default('active'),
});

export const artifactParams = z.object({ note_id: uuid, artifact_kind: z.enum(ARTIFACT_KINDS) });

export const generateArtifactBody = z.strictObject({
  language: z
    .string()
    .regex(/^(auto|[a-z]{2}(-[A-Z]{2})?)$/, "must be 'auto' or a language code such as 'en' or 'pt-BR'")
    .default('auto'),
  regenerate: z.boolean().default(false),
});

export const askBody = z.strictObject({
  question: z
    .string()
    .min(1, 'must not be empty')
    .max(2000, 'must be at most 2000 characters')
    .refine((question) => question.trim() !== '', 'must not be blank'),
  note_ids: z.array(uuid).max(100, 'at most 100 note IDs').nullable().optional(),
});
