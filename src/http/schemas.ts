import { ARTIFACT_KINDS } from '../domain/artifact-kinds.ts';
import { COLLECTION_LIMITS } from '../domain/collection.ts';
import { RECORDING_CONTENT_TYPES } from '../domain/recording-types.ts';
import { type McpScope, mcpScopes } from '../domain/scopes.ts';
import { isSpeakerLabel } from '../domain/speaker-labels.ts';
import * as z from '../domain/zod-mini.ts';

/**
 * Request schemas of the REST operations; openapi.yaml describes the same shapes. On zod/mini
 * (src/domain/zod-mini.ts), as every API function loads them at cold start: `.check()` takes what the
 * classic API chains (`.min()`, `.trim()`, `.refine()`), with the same checks in the same order.
 */

/** A UUID as the client sent it, in either case: where the exact text matters (confirm_note_id). */
export const uuidAsSent = z
  .string()
  .check(
    z.regex(
      /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
      'must be a UUID',
    ),
  );

const uuid = z.pipe(
  uuidAsSent,
  z.transform((id: string) => id.toLowerCase()),
);

export const noteParams = z.object({ note_id: uuid });

/**
 * A string of at most `max` characters as the contract counts them: on the value as sent (before any
 * trimming), in code points like JSON Schema's maxLength (zod's `.max()` counts code points too), so
 * an emoji is one character.
 */
function limitedText(max: number) {
  return z.string().check(z.maxLength(max, `must be at most ${max} characters`));
}

/** Trimmed; a value of spaces only is refused (the contract's `pattern: \S`). */
export const title = limitedText(200).check(z.trim(), z.minLength(1, 'must not be empty'));

/** The S3 single-PUT limit: a presigned upload cannot be larger. */
export const MAX_AUDIO_BYTES = 5 * 1024 ** 3;

export const submitTranscriptionBody = z.strictObject({
  title,
  // Every type the contract lists; whether this deployment's engine reads it is the operation's 415.
  content_type: z.enum(RECORDING_CONTENT_TYPES, {
    error: `must be one of ${RECORDING_CONTENT_TYPES.join(', ')}`,
  }),
  // The upper bound is checked by the operation: too large is 413, not a schema error, whatever the
  // magnitude (JSON's 1e400 parses as Infinity; zod's `.int()` would refuse anything past 2^53).
  size_bytes: z.pipe(
    // zod refuses infinities outright; as the largest finite numbers they meet the same checks.
    // (zod's classic `preprocess` is this pipe, which zod/mini leaves to be written out.)
    z.transform((size: unknown) =>
      typeof size === 'number' && !Number.isFinite(size) ? Math.sign(size) * Number.MAX_VALUE : size,
    ),
    z.number().check(z.gte(1, 'must be at least 1'), z.refine(Number.isInteger, 'must be an integer')),
  ),
  speakers_expected: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10))),
});

/**
 * What a speaker name may not contain: line breaks and other control characters, and the cue timing
 * arrow `-->`. Names are written into SRT and WebVTT cues, where either would start a cue of its own.
 * The contract's SpeakerNamesUpdate says the same, and "not blank", in one pattern.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CUE_SAFE = /^(?:(?!-->)[^\u0000-\u001F\u007F-\u009F\u2028\u2029])*$/;

const speakerName = limitedText(100).check(
  z.regex(CUE_SAFE, 'must not contain line breaks, control characters or "-->"'),
  z.trim(),
  z.minLength(1, 'must not be empty'),
);

/** Keys are the labels the engines give (`Speaker 1`, `Speaker 2`, ...). */
const speakerNames = z
  .record(
    z.string().check(z.refine(isSpeakerLabel, 'keys must be speaker labels such as "Speaker 1"')),
    z.nullable(speakerName),
    // zod reports a bad key as "Invalid key in record"; say what a key must be.
    {
      error: (issue) =>
        issue.code === 'invalid_key' ? 'keys must be speaker labels such as "Speaker 1"' : undefined,
    },
  )
  .check(
    z.refine((names) => Object.keys(names).length <= 50, { message: 'at most 50 speakers' }),
    // "Speaker 2" as the name of Speaker 1 would make two people look alike everywhere, and a
    // set_speaker by that name would pick Speaker 2.
    z.refine(
      (names) =>
        Object.entries(names).every(
          ([label, name]) => name === null || name === label || !isSpeakerLabel(name),
        ),
      { message: 'a name must not be another speaker\'s label (such as "Speaker 2"): choose a name' },
    ),
  );

const UPDATE_NOTE_FIELDS = ['title', 'state', 'speaker_names', 'protected'] as const;

export const updateNoteBody = z
  .strictObject({
    title: z.optional(title),
    state: z.optional(z.enum(['active', 'trashed'])),
    speaker_names: z.optional(speakerNames),
    protected: z.optional(z.boolean()),
  })
  .check(
    // Named, not any property: the MCP tool's input holds this body beside note_id and if_match.
    z.refine((body) => UPDATE_NOTE_FIELDS.some((field) => body[field] !== undefined), {
      message: `give at least one of ${UPDATE_NOTE_FIELDS.join(', ')}`,
    }),
  );

/*
 * Query parameters: unknown ones are ignored on every operation (what clients and proxies expect:
 * tracking or cache-busting parameters must not break a call); known ones are validated (400).
 */
export const transcriptionQuery = z.object({
  format: z.optional(z.enum(['json', 'srt', 'vtt', 'md'])),
});

/** generateInsights takes no options yet: no body, or an empty object. */
export const generateInsightsBody = z.strictObject({});

/** A page size from the query string, with its default. */
function pageLimit(max: number, fallback: number) {
  return z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(max)), fallback);
}

const cursor = z.optional(z.string().check(z.minLength(1), z.maxLength(1024)));

export const listNotesQuery = z.object({
  limit: pageLimit(100, 20),
  cursor,
  state: z._default(z.enum(['active', 'trashed']), 'active'),
  collection_id: z.optional(uuid),
});

export const collectionParams = z.object({ collection_id: uuid });
export const collectionNoteParams = z.object({ collection_id: uuid, note_id: uuid });

/** Shown in lists and terminals: one line, no control characters (the contract's CollectionName). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const ONE_LINE = /^[^\u0000-\u001F\u007F-\u009F\u2028\u2029]*$/;

const collectionName = limitedText(COLLECTION_LIMITS.nameCharacters).check(
  z.regex(ONE_LINE, 'must not contain line breaks or control characters'),
  z.trim(),
  z.minLength(1, 'must not be empty'),
);

/**
 * Line breaks may separate the instructions' points; no other control characters (the contract's
 * CollectionInstructions). Tabs count as control characters.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const LINES_OF_TEXT = /^[^\u0000-\u0009\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]*$/;

/**
 * A collection's instructions: at most 1,000 characters as sent; line breaks stored as LF; trimmed;
 * an empty text (or spaces only) means none, as `null` does.
 */
const collectionInstructions = z.nullable(
  z.pipe(
    limitedText(COLLECTION_LIMITS.instructionsCharacters).check(
      z.regex(LINES_OF_TEXT, 'must not contain control characters other than line breaks'),
      z.overwrite((text: string) => text.replace(/\r\n?/g, '\n')),
      z.trim(),
    ),
    z.transform((text: string) => (text === '' ? null : text)),
  ),
);

/** Whole days, one to ten years; `null`: notes are kept until a person trashes them. */
const retentionDays = z.nullable(
  z
    .number()
    .check(
      z.int('must be a whole number of days'),
      z.gte(1, 'must be at least 1 day'),
      z.lte(COLLECTION_LIMITS.retentionDays, `must be at most ${COLLECTION_LIMITS.retentionDays} days`),
    ),
);

export const createCollectionBody = z.strictObject({
  name: collectionName,
  instructions: z.optional(collectionInstructions),
  retention_days: z.optional(retentionDays),
});

const UPDATE_COLLECTION_FIELDS = ['name', 'instructions', 'retention_days'] as const;

/** A rename, new instructions or retention period (`null` clears them), or several at once. */
export const updateCollectionBody = z
  .strictObject({
    name: z.optional(collectionName),
    instructions: z.optional(collectionInstructions),
    retention_days: z.optional(retentionDays),
  })
  .check(
    z.refine((body) => UPDATE_COLLECTION_FIELDS.some((field) => body[field] !== undefined), {
      message: `give at least one of ${UPDATE_COLLECTION_FIELDS.join(', ')}`,
    }),
  );

/** A label for an API key, shown in lists: one line, 1 to 100 characters. */
const apiKeyName = limitedText(100).check(
  z.regex(ONE_LINE, 'must not contain line breaks or control characters'),
  z.trim(),
  z.minLength(1, 'must not be empty'),
);

export const createApiKeyBody = z.strictObject({
  name: apiKeyName,
  /** Fewer scopes than the creator holds; omitted, the creator's (functions/createApiKey.ts). */
  scopes: z.optional(
    z.array(z.enum(Object.keys(mcpScopes) as [McpScope, ...McpScope[]])).check(
      z.minLength(1, 'must name at least one scope'),
      // The contract's uniqueItems: a scope named twice is a mistake in the request, said back.
      z.refine((scopes) => repeated(scopes) === undefined, {
        error: (issue) => `names ${repeated(issue.input as string[])} more than once`,
      }),
    ),
  ),
});

/** The first item that `items` holds a second time, if any. */
function repeated(items: readonly string[]): string | undefined {
  return items.find((item, index) => items.indexOf(item) !== index);
}

export const apiKeyParams = z.object({
  key_id: z.string().check(z.regex(/^key_[0-9a-f]{16}$/, 'must be a key ID such as key_0123456789abcdef')),
});

/** A session's ID (listSessions): an application's is a UUID, a browser's `browser_` and 24 hex digits. */
export const sessionParams = z.object({
  session_id: z
    .string()
    .check(
      z.regex(
        /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|browser_[0-9a-f]{24})$/,
        'must be a session ID from listSessions',
      ),
    ),
});

export const addNoteToCollectionBody = z.strictObject({ note_id: uuid });

export const artifactParams = z.object({ note_id: uuid, artifact_kind: z.enum(ARTIFACT_KINDS) });

export const generateArtifactBody = z.strictObject({
  language: z._default(
    z
      .string()
      .check(
        z.regex(/^(auto|[a-z]{2}(-[A-Z]{2})?)$/, "must be 'auto' or a language code such as 'en' or 'pt-BR'"),
      ),
    'auto',
  ),
  regenerate: z._default(z.boolean(), false),
});

export const askBody = z.strictObject({
  question: limitedText(2000).check(
    z.minLength(1, 'must not be empty'),
    z.refine((question) => question.trim() !== '', 'must not be blank'),
  ),
  note_ids: z.optional(z.nullable(z.array(uuid).check(z.maxLength(100, 'at most 100 note IDs')))),
  collection_id: z.optional(z.nullable(uuid)),
});

/** searchNotes: `q` is counted as the contract counts it; booleans come as the words true or false. */
export const searchNotesQuery = z.object({
  q: limitedText(500).check(
    z.minLength(1, 'must not be empty'),
    z.refine((q) => q.trim() !== '', 'must not be blank'),
  ),
  limit: pageLimit(50, 10),
  cursor,
  include_trashed: z.pipe(
    z._default(z.enum(['true', 'false'], { message: 'must be true or false' }), 'false'),
    z.transform((value) => value === 'true'),
  ),
  collection_id: z.optional(uuid),
});

/*
 * Transcript corrections (editTranscription, undoTranscriptionEdit). Segments are numbered from 0 in
 * the revision named by If-Match; whether a number exists there is the domain's check (422).
 */
export const EDIT_LIMITS = { editsPerRequest: 50, textCharacters: 5000, segmentsPerEdit: 10_000 } as const;

const segmentIndex = z.int().check(z.gte(0), z.lte(1_000_000));

const transcriptEdit = z.discriminatedUnion(
  'op',
  [
    z.strictObject({
      op: z.literal('replace_text'),
      segment: segmentIndex,
      text: limitedText(EDIT_LIMITS.textCharacters).check(z.trim(), z.minLength(1, 'must not be empty')),
    }),
    z.strictObject({ op: z.literal('set_speaker'), segment: segmentIndex, speaker: speakerName }),
    z.strictObject({
      op: z.literal('set_speakers'),
      segments: z.array(segmentIndex).check(
        z.minLength(1, 'give at least one segment'),
        z.maxLength(
          EDIT_LIMITS.segmentsPerEdit,
          `at most ${EDIT_LIMITS.segmentsPerEdit} segments in one edit`,
        ),
        z.refine((list) => new Set(list).size === list.length, { message: 'each segment at most once' }),
      ),
      speaker: speakerName,
    }),
    z.strictObject({ op: z.literal('merge'), segment: segmentIndex }),
    z.strictObject({ op: z.literal('merge_speakers'), speaker: speakerName, into: speakerName }),
    z
      .strictObject({
        op: z.literal('split'),
        segment: segmentIndex,
        at_word: z.optional(z.int().check(z.gte(0), z.lte(1_000_000))),
        at_ms: z.optional(z.int().check(z.gte(0))),
      })
      .check(
        z.refine((edit) => (edit.at_word === undefined) !== (edit.at_ms === undefined), {
          message: 'give exactly one of at_word and at_ms',
        }),
      ),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? 'op must be one of replace_text, set_speaker, set_speakers, merge, split, merge_speakers'
        : undefined,
  },
);

export const editTranscriptionBody = z.strictObject({
  edits: z
    .array(transcriptEdit)
    .check(
      z.minLength(1, 'give at least one edit'),
      z.maxLength(EDIT_LIMITS.editsPerRequest, `at most ${EDIT_LIMITS.editsPerRequest} edits in one request`),
    ),
});

/** findSimilarSegments: a speaker, and the segments of theirs to compare with (default: all). */
export const findSimilarSegmentsBody = z.strictObject({
  speaker: speakerName,
  examples: z.optional(
    z
      .array(segmentIndex)
      .check(
        z.minLength(1, "give at least one segment, or leave examples out for all of the speaker's"),
        z.maxLength(EDIT_LIMITS.segmentsPerEdit, `at most ${EDIT_LIMITS.segmentsPerEdit} segments`),
      ),
  ),
});

/** Undo goes back one revision; `to: "original"` goes back to the recogniser's transcript. */
export const undoTranscriptionEditBody = z.strictObject({
  to: z._default(z.enum(['previous', 'original']), 'previous'),
});

export const voiceProfileParams = z.object({
  profile_id: z
    .string()
    .check(z.regex(/^vp_[0-9a-f]{16}$/, 'must be a voice profile ID such as vp_0123456789abcdef')),
});

/**
 * A voice profile's name: what it names speakers, so a speaker name's rules, and not a label (a
 * speaker named "Speaker 3" would look like another speaker everywhere).
 */
const voiceProfileName = speakerName.check(
  z.refine((name) => !isSpeakerLabel(name), 'must not be a speaker label such as "Speaker 2"'),
);

export const voiceProfileSettingsBody = z.strictObject({ enabled: z.boolean() });

export const createVoiceProfileBody = z.strictObject({
  note_id: uuid,
  speaker: speakerName,
  name: z.optional(voiceProfileName),
  profile_id: z.optional(voiceProfileParams.shape.profile_id),
});

export const updateVoiceProfileBody = z.strictObject({ name: voiceProfileName });

export const voiceMatchParams = z.object({ note_id: uuid, speaker: speakerName });

export const reviewVoiceMatchBody = z.strictObject({ decision: z.enum(['confirm', 'reject']) });
