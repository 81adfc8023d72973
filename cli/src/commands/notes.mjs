// @ts-check
import { flag, integerOption, noteIdArg, oneOf, requireConfirmation, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';
import { protectionLines, retentionLines } from '../retention.mjs';
import { collectionIdOf } from './collections.mjs';
import { notePath, printEtag } from './shared.mjs';

/** @typedef {import('../retention.mjs').RetentionNote} RetentionNote */

/** @type {import('../types.mjs').CommandSpec} */
export const notesList = {
  name: 'notes list',
  summary: 'List notes, newest first, one page (or all pages with --all)',
  operation: 'listNotes',
  args: [],
  options: {
    state: { type: 'string', value: 'active|trashed', description: 'Active notes (default) or the trash' },
    limit: { type: 'string', value: 'N', description: 'Notes per page, 1 to 100 (default 20)' },
    cursor: {
      type: 'string',
      value: 'C',
      description: 'Start at this page: next_cursor of the previous page',
    },
    collection: {
      type: 'string',
      value: 'C',
      description: 'Only the notes in this collection (its ID or name)',
    },
    all: { type: 'boolean', description: 'Follow next_cursor and print every note in one document' },
  },
  examples: [
    'notes notes list --limit 5',
    'notes notes list --state trashed --all',
    'notes notes list --collection Product --all',
  ],
  async run({ values, client }) {
    const command = 'notes list';
    const stateValue = stringOption(values, 'state');
    const state =
      stateValue === undefined ? undefined : oneOf(stateValue, ['active', 'trashed'], '--state', command);
    const limit = integerOption(values, 'limit', 1, 100, command);
    const cursor = stringOption(values, 'cursor');
    if (cursor === '') throw new UsageError('--cursor must not be empty', command);
    const api = client();
    const collection = stringOption(values, 'collection');
    const collectionId =
      collection === undefined ? undefined : await collectionIdOf(api, collection, command);
    /** @param {string | undefined} pageCursor */
    const page = async (pageCursor) => {
      const { body } = await api.request('GET', '/v1/notes', {
        query: { state, limit, cursor: pageCursor, collection_id: collectionId },
        what: 'notes list',
      });
      return /** @type {{ notes: unknown[], next_cursor: string | null }} */ (body);
    };
    let result = await page(cursor);
    if (!flag(values, 'all')) {
      printJson(result);
      if (result.next_cursor) info(`More notes: add --cursor ${result.next_cursor} (or --all).`);
      return;
    }
    const notes = [...result.notes];
    let pages = 1;
    while (result.next_cursor) {
      result = await page(result.next_cursor);
      notes.push(...result.notes);
      pages++;
    }
    printJson({ notes, next_cursor: null });
    info(`${notes.length} notes in ${pages} page${pages === 1 ? '' : 's'}.`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const notesGet = {
  name: 'notes get',
  summary: 'Show a note: audio, collections, transcription job, transcription and Insights',
  operation: 'getNote',
  args: ['<id>'],
  options: {},
  details:
    "Prints the note as JSON, and on stderr its ETag and what its collections' retention periods do\n" +
    'to it: when it moves to the trash (expiry), or, in the trash, when it is deleted for good.',
  examples: ['notes notes get 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34'],
  async run({ positionals, client }) {
    const noteId = noteIdArg(positionals[0], 'notes get');
    const response = await client().request('GET', notePath(noteId), { what: `notes get ${noteId}` });
    printJson(response.body);
    printEtag(response);
    for (const line of retentionLines(/** @type {RetentionNote} */ (response.body))) info(line);
  },
};

/**
 * `--if-match`: the user passes the ETag of the note as they saw it (`notes get` prints it). The CLI
 * does not read-then-write on its own: a tag it fetched a moment before the write would protect
 * nothing the server's field-by-field update does not, only the tag of what the user saw does.
 */
const IF_MATCH_OPTION = {
  type: /** @type {const} */ ('string'),
  value: 'etag',
  description: "Change the note only if it still has this ETag (printed by 'notes get'); else exit 5",
};

/**
 * PATCHes the note, with If-Match when `--if-match` was given, and prints the updated note and its
 * new ETag, then the lines `say` makes of it on stderr.
 * @param {import('../types.mjs').CommandInput} context
 * @param {string} noteId
 * @param {Record<string, unknown>} body
 * @param {string} what
 * @param {(note: RetentionNote) => string[]} [say]
 */
async function patchNote({ client, values }, noteId, body, what, say) {
  const ifMatch = stringOption(values, 'if-match');
  const response = await client().request('PATCH', notePath(noteId), {
    body,
    what,
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });
  printJson(response.body);
  printEtag(response);
  for (const line of say?.(/** @type {RetentionNote} */ (response.body)) ?? []) info(line);
}

/** @type {import('../types.mjs').CommandSpec} */
export const notesRename = {
  name: 'notes rename',
  summary: 'Rename a note (1 to 200 characters)',
  operation: 'updateNote',
  args: ['<id>', '<title>'],
  options: { 'if-match': IF_MATCH_OPTION },
  examples: [
    "notes notes rename 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 'Weekly product sync, 12 January'",
    `notes notes rename 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 'Weekly sync' --if-match '"q7c1Zb4lWkqk3cF0m2D9aA"'`,
  ],
  async run(context) {
    const noteId = noteIdArg(context.positionals[0], 'notes rename');
    const title = context.positionals[1] ?? '';
    if (!title.trim()) throw new UsageError('the title must not be empty', 'notes rename');
    await patchNote(context, noteId, { title }, `notes rename ${noteId}`);
  },
};

/**
 * `notes trash` and `notes restore`: PATCH the state.
 * @param {'trash' | 'restore'} verb
 * @returns {import('../types.mjs').CommandSpec}
 */
function stateCommand(verb) {
  const state = verb === 'trash' ? 'trashed' : 'active';
  return {
    name: `notes ${verb}`,
    summary:
      verb === 'trash'
        ? 'Move a note to the trash (reversible; not a deletion)'
        : 'Restore a note from the trash',
    operation: 'updateNote',
    args: ['<id>'],
    options: { 'if-match': IF_MATCH_OPTION },
    ...(verb === 'restore'
      ? {
          details:
            "A restored note's collections' retention periods start again from the restoring; stderr\n" +
            'says when it moves to the trash next, if one has a period.',
        }
      : {}),
    examples: [`notes notes ${verb} 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34`],
    async run(context) {
      const noteId = noteIdArg(context.positionals[0], `notes ${verb}`);
      await patchNote(
        context,
        noteId,
        { state },
        `notes ${verb} ${noteId}`,
        verb === 'restore' ? retentionLines : undefined,
      );
    },
  };
}

export const notesTrash = stateCommand('trash');
export const notesRestore = stateCommand('restore');

/**
 * `notes protect` and `notes unprotect`: PATCH `protected`.
 * @param {'protect' | 'unprotect'} verb
 * @returns {import('../types.mjs').CommandSpec}
 */
function protectionCommand(verb) {
  const keep = verb === 'protect';
  return {
    name: `notes ${verb}`,
    summary: keep
      ? "Keep a note from its collections' retention periods (not trashed for its age)"
      : "Let its collections' retention periods apply to a note again",
    operation: 'updateNote',
    args: ['<id>'],
    options: { 'if-match': IF_MATCH_OPTION },
    details: keep
      ? 'A collection with a retention period (notes collections update <collection> --retention-days N)\n' +
        'moves its notes to the trash N days after they were made or last restored; a protected note\n' +
        'stays. A person can still trash it. Prints the note (protected: true); stderr says so.'
      : 'Prints the note (protected: false); stderr says when it moves to the trash now, and by which\n' +
        "collection's period, or that none of its collections has one.",
    examples: [`notes notes ${verb} 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34`],
    async run(context) {
      const noteId = noteIdArg(context.positionals[0], `notes ${verb}`);
      await patchNote(context, noteId, { protected: keep }, `notes ${verb} ${noteId}`, protectionLines);
    },
  };
}

export const notesProtect = protectionCommand('protect');
export const notesUnprotect = protectionCommand('unprotect');

/** @type {import('../types.mjs').CommandSpec} */
export const notesDelete = {
  name: 'notes delete',
  summary: 'Permanently delete a note and all its data',
  operation: 'deleteNote',
  args: ['<id>'],
  required: '--confirm <id>',
  options: {
    confirm: {
      type: 'string',
      value: 'id',
      description: 'Required: the same note ID again, to confirm the permanent deletion',
    },
  },
  details:
    'Deletes the note, its audio, transcription, Insights and artifacts. It cannot be undone; to\n' +
    "remove a note reversibly use 'notes notes trash'. Prints nothing on stdout (HTTP 204).",
  examples: [
    'notes notes delete 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --confirm 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34',
  ],
  async run({ positionals, values, client }) {
    const noteId = noteIdArg(positionals[0], 'notes delete');
    requireConfirmation(noteId, stringOption(values, 'confirm'), 'notes delete');
    await client().request('DELETE', notePath(noteId), { what: `notes delete ${noteId}` });
    info(`Deleted note ${noteId} permanently.`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const notesGroup = {
  name: 'notes',
  summary: 'List, read, rename, trash, restore, protect from retention periods and permanently delete notes.',
  commands: [
    notesList,
    notesGet,
    notesRename,
    notesTrash,
    notesRestore,
    notesProtect,
    notesUnprotect,
    notesDelete,
  ],
};
