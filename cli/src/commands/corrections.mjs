// @ts-check
import { flag, integerOption, noteIdArg, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { printJson } from '../output.mjs';
import { notePath, printEtag } from './shared.mjs';

/**
 * Transcript corrections: `notes transcription edit | merge | split | undo`. The service requires
 * If-Match on them (segments are numbered within one revision). `--if-match` pins the change to the
 * transcript as the user saw it (`notes transcription get` prints its ETag); without it the CLI
 * reads the current ETag just before the change, which still refuses a change made in between.
 */

const MAX_SEGMENT = 1_000_000;

const IF_MATCH_OPTION = {
  type: /** @type {const} */ ('string'),
  value: 'etag',
  description:
    "Apply only to the transcript with this ETag (printed by 'notes transcription get'); else exit 5. Default: the current one",
};

const SEGMENT_OPTION = {
  type: /** @type {const} */ ('string'),
  value: 'N',
  description: 'The segment, numbered from 0 in conversation_segments',
};

/**
 * @param {import('../types.mjs').OptionValues} values
 * @param {string} command
 * @returns {number}
 */
function segmentOf(values, command) {
  const segment = integerOption(values, 'segment', 0, MAX_SEGMENT, command);
  if (segment === undefined) throw new UsageError('--segment <N> is required', command);
  return segment;
}

/**
 * POSTs a correction with If-Match (the one given, or the transcript's current ETag) and prints the
 * transcript now current and its ETag.
 * @param {import('../types.mjs').CommandInput} context
 * @param {string} noteId
 * @param {'edits' | 'undo'} operation
 * @param {Record<string, unknown>} body
 * @param {string} what
 * @param {string} [etag] the ETag to send, when the caller holds it (else `--if-match`, else the current one)
 */
async function correct({ client, values }, noteId, operation, body, what, etag) {
  const api = client();
  let ifMatch = etag ?? stringOption(values, 'if-match');
  if (ifMatch === undefined) {
    const current = await api.request('GET', `${notePath(noteId)}/transcription`, { what });
    ifMatch = current.headers.get('etag') ?? '*';
  }
  const response = await api.request('POST', `${notePath(noteId)}/transcription/${operation}`, {
    body,
    what,
    headers: { 'if-match': ifMatch },
  });
  printJson(response.body);
  printEtag(response);
}

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionEdit = {
  name: 'transcription edit',
  summary: "Correct a segment's text and/or speaker (a new revision; undo goes back)",
  operation: 'editTranscription',
  args: ['<id>'],
  required: '--segment <N>',
  options: {
    segment: SEGMENT_OPTION,
    text: { type: 'string', value: 'text', description: "The segment's corrected text" },
    speaker: {
      type: 'string',
      value: 'name',
      description: "Its speaker: a label ('Speaker 2') or a name the note gives a label (speaker_names)",
    },
    'if-match': IF_MATCH_OPTION,
  },
  details:
    'Prints the corrected transcript (JSON) and, on stderr, its new ETag. Words that did not change\n' +
    'keep their timings; exports, Ask and search follow at once.',
  examples: [
    `notes transcription edit 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segment 3 --text 'We ship on Friday.'`,
    `notes transcription edit 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segment 4 --speaker Alice --if-match '"q7c1Zb4lWkqk3cF0m2D9aA"'`,
  ],
  async run(context) {
    const command = 'transcription edit';
    const noteId = noteIdArg(context.positionals[0], command);
    const segment = segmentOf(context.values, command);
    const text = stringOption(context.values, 'text');
    const speaker = stringOption(context.values, 'speaker');
    if (text === undefined && speaker === undefined) {
      throw new UsageError('give --text, --speaker or both', command);
    }
    const edits = [
      ...(text === undefined ? [] : [{ op: 'replace_text', segment, text }]),
      ...(speaker === undefined ? [] : [{ op: 'set_speaker', segment, speaker }]),
    ];
    await correct(context, noteId, 'edits', { edits }, `${command} ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionMerge = {
  name: 'transcription merge',
  summary: 'Merge a segment with the next one',
  operation: 'editTranscription',
  args: ['<id>'],
  required: '--segment <N>',
  options: { segment: SEGMENT_OPTION, 'if-match': IF_MATCH_OPTION },
  examples: ['notes transcription merge 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segment 2'],
  async run(context) {
    const command = 'transcription merge';
    const noteId = noteIdArg(context.positionals[0], command);
    const segment = segmentOf(context.values, command);
    await correct(context, noteId, 'edits', { edits: [{ op: 'merge', segment }] }, `${command} ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionSplit = {
  name: 'transcription split',
  summary: 'Split a segment in two, before a word or at a time',
  operation: 'editTranscription',
  args: ['<id>'],
  required: '--segment <N> (--at-word <K> | --at-ms <T>)',
  options: {
    segment: SEGMENT_OPTION,
    'at-word': { type: 'string', value: 'K', description: 'Before word K of the segment (from 0)' },
    'at-ms': { type: 'string', value: 'T', description: 'At T ms from the start of the recording' },
    'if-match': IF_MATCH_OPTION,
  },
  examples: [
    'notes transcription split 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segment 1 --at-word 5',
    'notes transcription split 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segment 1 --at-ms 12500',
  ],
  async run(context) {
    const command = 'transcription split';
    const noteId = noteIdArg(context.positionals[0], command);
    const segment = segmentOf(context.values, command);
    const atWord = integerOption(context.values, 'at-word', 0, MAX_SEGMENT, command);
    const atMs = integerOption(context.values, 'at-ms', 0, Number.MAX_SAFE_INTEGER, command);
    if ((atWord === undefined) === (atMs === undefined)) {
      throw new UsageError('give exactly one of --at-word and --at-ms', command);
    }
    const edit =
      atWord === undefined
        ? { op: 'split', segment, at_ms: atMs }
        : { op: 'split', segment, at_word: atWord };
    await correct(context, noteId, 'edits', { edits: [edit] }, `${command} ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionUndo = {
  name: 'transcription undo',
  summary: "Undo the last correction, or go back to the recogniser's transcript",
  operation: 'undoTranscriptionEdit',
  args: ['<id>'],
  options: {
    original: { type: 'boolean', description: "Back to the recogniser's transcript (revision 0)" },
    'if-match': IF_MATCH_OPTION,
  },
  examples: [
    'notes transcription undo 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34',
    'notes transcription undo 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --original',
  ],
  async run(context) {
    const command = 'transcription undo';
    const noteId = noteIdArg(context.positionals[0], command);
    const to = flag(context.values, 'original') ? 'original' : 'previous';
    await correct(context, noteId, 'undo', { to }, `${command} ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionMergeSpeakers = {
  name: 'transcription merge-speakers',
  summary: 'One person heard as two: give every segment of one speaker to another',
  operation: 'editTranscription',
  args: ['<id>'],
  required: '--speaker <name> --into <name>',
  options: {
    speaker: {
      type: 'string',
      value: 'name',
      description: "The speaker whose segments move: a label ('Speaker 3') or its name",
    },
    into: { type: 'string', value: 'name', description: 'The speaker who said them: a label or its name' },
    'if-match': IF_MATCH_OPTION,
  },
  examples: [
    "notes transcription merge-speakers 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --speaker 'Speaker 3' --into 'Speaker 1'",
  ],
  async run(context) {
    const command = 'transcription merge-speakers';
    const noteId = noteIdArg(context.positionals[0], command);
    const speaker = stringOption(context.values, 'speaker');
    const into = stringOption(context.values, 'into');
    if (speaker === undefined || into === undefined)
      throw new UsageError('give --speaker and --into', command);
    const edits = [{ op: 'merge_speakers', speaker, into }];
    await correct(context, noteId, 'edits', { edits }, `${command} ${noteId}`);
  },
};

/**
 * `3,5,8-12` as segment numbers, each once, in order given; a usage error for anything else.
 * @param {string | undefined} text
 * @param {string} option
 * @param {string} command
 * @returns {number[] | undefined}
 */
function segmentList(text, option, command) {
  if (text === undefined) return undefined;
  /** @type {number[]} */
  const segments = [];
  for (const part of text.split(',')) {
    const range = /^\s*(\d{1,7})\s*(?:-\s*(\d{1,7})\s*)?$/.exec(part);
    const from = Number(range?.[1]);
    const to = range?.[2] === undefined ? from : Number(range[2]);
    if (!range || to < from || to > MAX_SEGMENT) {
      throw new UsageError(`--${option} takes segment numbers and ranges, such as 3,5,8-12`, command);
    }
    for (let segment = from; segment <= to; segment++) segments.push(segment);
  }
  if (new Set(segments).size !== segments.length) {
    throw new UsageError(`--${option}: each segment at most once`, command);
  }
  return segments;
}

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionSetSpeaker = {
  name: 'transcription set-speaker',
  summary: 'Give several segments (a range, a list) to one speaker at once',
  operation: 'editTranscription',
  args: ['<id>'],
  required: '--segments <list> --speaker <name>',
  options: {
    segments: { type: 'string', value: 'list', description: 'Segment numbers and ranges: 3,5,8-12' },
    speaker: {
      type: 'string',
      value: 'name',
      description: "Their speaker: a label ('Speaker 2') or a name the note gives a label",
    },
    'if-match': IF_MATCH_OPTION,
  },
  details: 'One correction: one undo takes it back.',
  examples: [
    'notes transcription set-speaker 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --segments 12-30 --speaker Alice',
  ],
  async run(context) {
    const command = 'transcription set-speaker';
    const noteId = noteIdArg(context.positionals[0], command);
    const segments = segmentList(stringOption(context.values, 'segments'), 'segments', command);
    const speaker = stringOption(context.values, 'speaker');
    if (segments === undefined || speaker === undefined)
      throw new UsageError('give --segments and --speaker', command);
    const edits = [{ op: 'set_speakers', segments, speaker }];
    await correct(context, noteId, 'edits', { edits }, `${command} ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionSimilar = {
  name: 'transcription similar',
  summary: "Find the segments spoken in a voice like a speaker's, and optionally give them to them",
  operation: 'findSimilarSegments',
  args: ['<id>'],
  required: '--speaker <name>',
  options: {
    speaker: {
      type: 'string',
      value: 'name',
      description: "The speaker: a label ('Speaker 2') or a name the note gives a label",
    },
    examples: {
      type: 'string',
      value: 'list',
      description: "Their segments to compare with (3,5,8-12); default: all of the speaker's",
    },
    apply: {
      type: 'boolean',
      description: 'Give the segments found to the speaker (one correction; undo takes it back)',
    },
  },
  details:
    'Prints what findSimilarSegments found (JSON: speaker_label, segments, etag) and, on stderr, how\n' +
    'many; with --apply, then gives them to the speaker against that etag and prints the transcript.',
  examples: [
    'notes transcription similar 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --speaker Alice --examples 4,9',
    'notes transcription similar 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --speaker Alice --apply',
  ],
  async run(context) {
    const command = 'transcription similar';
    const noteId = noteIdArg(context.positionals[0], command);
    const speaker = stringOption(context.values, 'speaker');
    if (speaker === undefined) throw new UsageError('give --speaker', command);
    const examples = segmentList(stringOption(context.values, 'examples'), 'examples', command);
    const what = `${command} ${noteId}`;
    const api = context.client();
    const found = await api.request('POST', `${notePath(noteId)}/transcription/similar-segments`, {
      body: { speaker, ...(examples ? { examples } : {}) },
      what,
    });
    const result = /** @type {{ speaker_label: string, segments: { segment: number }[], etag: string }} */ (
      found.body
    );
    process.stderr.write(`${result.segments.length} segment(s) sound like ${speaker}\n`);
    // Without --apply, or with nothing to apply, what was found is the answer.
    if (!flag(context.values, 'apply') || result.segments.length === 0) {
      printJson(result);
      return;
    }
    const segments = result.segments.map((segment) => segment.segment);
    const edits = [{ op: 'set_speakers', segments, speaker: result.speaker_label }];
    await correct(context, noteId, 'edits', { edits }, what, result.etag);
  },
};

export const CORRECTION_COMMANDS = [
  transcriptionEdit,
  transcriptionMerge,
  transcriptionMergeSpeakers,
  transcriptionSetSpeaker,
  transcriptionSimilar,
  transcriptionSplit,
  transcriptionUndo,
];
