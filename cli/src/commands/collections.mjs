// @ts-check
import { readFile } from 'node:fs/promises';
import { isUuid, noteIdArg, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';
import { daysText, RETENTION_DAYS, retentionDaysOption } from '../retention.mjs';

const EXAMPLE_ID = '5b1e0c7a-2f4d-4a8e-9b3c-6d7e8f9a0b12';
const EXAMPLE_NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';

/**
 * @typedef {{ collection_id: string, name: string }} CollectionRef
 */

/**
 * A collection given by ID or by name: names are unique in the account regardless of case (the
 * service compares them lower-cased after NFKC), so a name finds at most one collection.
 * @param {import('../http.mjs').ApiClient} api
 * @param {string | undefined} value
 * @param {string} command
 * @returns {Promise<string>} the collection ID
 */
export async function collectionIdOf(api, value, command) {
  if (value === undefined || value.trim() === '')
    throw new UsageError('give a collection ID or name', command);
  if (isUuid(value)) return value;
  const { body } = await api.request('GET', '/v1/collections', { what: 'collections list' });
  const key = (/** @type {string} */ name) => name.trim().normalize('NFKC').toLowerCase();
  const collections = /** @type {{ collections: CollectionRef[] }} */ (body).collections;
  const found = collections.find((collection) => key(collection.name) === key(value));
  if (!found) {
    throw new UsageError(
      `no collection named '${value}' (see 'notes collections list', or create it with 'notes collections create')`,
      command,
    );
  }
  return found.collection_id;
}

/** @type {Record<string, import('../types.mjs').OptionSpec>} */
const INSTRUCTIONS_OPTIONS = {
  instructions: {
    type: 'string',
    value: 'text',
    description: "What its notes' Insights and artifacts should bring out (at most 1,000 characters)",
  },
  'instructions-file': {
    type: 'string',
    value: 'path',
    description: 'The instructions from a UTF-8 text file (line breaks kept)',
  },
};

const INSTRUCTIONS_DETAILS =
  "Instructions tell the AI engines what the Insights and artifacts of the collection's notes should\n" +
  "bring out ('Action items only'); the local extractive engine cannot follow them, and its results\n" +
  'say so. A note in several collections gets all their instructions, by collection name.';

/** @type {Record<string, import('../types.mjs').OptionSpec>} */
const RETENTION_OPTIONS = {
  'retention-days': {
    type: 'string',
    value: 'N|none',
    description: `Move its notes to the trash N days (${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}) after they were made; none: keep them`,
  },
};

const RETENTION_DETAILS =
  'A retention period (--retention-days N) moves a note filed in the collection to the trash N days\n' +
  "after it was made or last restored, unless it is protected ('notes notes protect <id>'). It runs\n" +
  'hourly, so a period set on a collection that holds older notes moves them at the next run. The\n' +
  'trash deletes the notes the retention moved there for good after its period (30 days unless the\n' +
  "operator set another), unless restored. 'none' keeps notes until a person trashes them.";

/**
 * What a collection's retention period now does, on stderr, after it was set or cleared.
 * @param {unknown} body the collection (createCollection, updateCollection)
 * @param {boolean} existing whether the collection may hold notes already (an update)
 */
function sayRetention(body, existing) {
  const { name, retention_days: days } = /** @type {{ name: string, retention_days?: number | null }} */ (
    body
  );
  if (typeof days !== 'number') {
    info(`${name} keeps its notes until a person trashes them (no retention period).`);
    return;
  }
  info(
    `${name} keeps notes ${daysText(days)}: each moves to the trash ${daysText(days)} after it was made or last restored, unless protected` +
      (existing ? '; notes older than that go within the hour.' : '.'),
  );
}

/**
 * The instructions given with --instructions or --instructions-file; undefined when neither.
 * @param {import('../types.mjs').OptionValues} values
 * @param {string} command
 * @returns {Promise<string | undefined>}
 */
async function instructionsOption(values, command) {
  const text = stringOption(values, 'instructions');
  const file = stringOption(values, 'instructions-file');
  if (text !== undefined && file !== undefined) {
    throw new UsageError('give --instructions or --instructions-file, not both', command);
  }
  if (file === undefined) return text;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = /** @type {{ code?: string }} */ (error).code;
    throw new UsageError(`cannot read '${file}'${code ? ` (${code})` : ''}`, command);
  }
}

/** @param {string} collectionId */
function collectionPath(collectionId) {
  return `/v1/collections/${encodeURIComponent(collectionId)}`;
}

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsList = {
  name: 'collections list',
  summary: 'List every collection, by name, with its instructions and retention period (retention_days)',
  operation: 'listCollections',
  args: [],
  options: {},
  examples: ['notes collections list'],
  async run({ client }) {
    const { body } = await client().request('GET', '/v1/collections', { what: 'collections list' });
    printJson(body);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsCreate = {
  name: 'collections create',
  summary:
    'Create a collection (names are unique, 1 to 100 characters), with instructions and a retention period if given',
  operation: 'createCollection',
  args: ['<name>'],
  options: { ...INSTRUCTIONS_OPTIONS, ...RETENTION_OPTIONS },
  details: `${INSTRUCTIONS_DETAILS}\n\n${RETENTION_DETAILS}`,
  examples: [
    "notes collections create 'Product'",
    "notes collections create Recipes --instructions 'Ingredients with amounts first, then the steps.'",
    'notes collections create Study --instructions-file study-instructions.txt',
    'notes collections create Stand-ups --retention-days 30',
  ],
  async run({ positionals, values, client }) {
    const command = 'collections create';
    const name = positionals[0] ?? '';
    if (!name.trim()) throw new UsageError('the name must not be empty', command);
    const retentionDays = retentionDaysOption(stringOption(values, 'retention-days'), command);
    const instructions = await instructionsOption(values, command);
    /** @type {{ name: string, instructions?: string, retention_days?: number | null }} */
    const request = { name };
    if (instructions !== undefined) request.instructions = instructions;
    if (retentionDays !== undefined) request.retention_days = retentionDays;
    const { body } = await client().request('POST', '/v1/collections', { body: request, what: command });
    printJson(body);
    if (typeof retentionDays === 'number') sayRetention(body, false);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsRename = {
  name: 'collections rename',
  summary: 'Rename a collection (its notes stay in it)',
  operation: 'updateCollection',
  args: ['<collection>', '<name>'],
  options: {},
  details: '<collection> is the collection ID or its current name.',
  examples: [
    `notes collections rename ${EXAMPLE_ID} 'Product 2027'`,
    "notes collections rename Product 'Product 2027'",
  ],
  async run({ positionals, client }) {
    const api = client();
    const name = positionals[1] ?? '';
    if (!name.trim()) throw new UsageError('the new name must not be empty', 'collections rename');
    const collectionId = await collectionIdOf(api, positionals[0], 'collections rename');
    const { body } = await api.request('PATCH', collectionPath(collectionId), {
      body: { name },
      what: `collections rename ${collectionId}`,
    });
    printJson(body);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsUpdate = {
  name: 'collections update',
  summary: 'Rename a collection, or set or clear its instructions or its retention period',
  operation: 'updateCollection',
  args: ['<collection>'],
  options: {
    name: { type: 'string', value: 'name', description: 'The new name' },
    ...INSTRUCTIONS_OPTIONS,
    'clear-instructions': { type: 'boolean', description: 'Remove the instructions' },
    ...RETENTION_OPTIONS,
  },
  details:
    '<collection> is the collection ID or its current name. Give at least one option; what is not\n' +
    'given stays as it is. Insights and artifacts made with other instructions then say outdated.\n' +
    `${INSTRUCTIONS_DETAILS}\n\n${RETENTION_DETAILS}`,
  examples: [
    "notes collections update Recipes --instructions 'Ingredients with amounts first, then the steps.'",
    'notes collections update Study --instructions-file study-instructions.txt',
    `notes collections update ${EXAMPLE_ID} --name 'Product 2027' --clear-instructions`,
    'notes collections update Stand-ups --retention-days 90',
    'notes collections update Stand-ups --retention-days none',
  ],
  async run({ positionals, values, client }) {
    const command = 'collections update';
    const name = stringOption(values, 'name');
    if (name !== undefined && !name.trim()) throw new UsageError('the new name must not be empty', command);
    const retentionDays = retentionDaysOption(stringOption(values, 'retention-days'), command);
    const instructions = await instructionsOption(values, command);
    const clear = values['clear-instructions'] === true;
    if (clear && instructions !== undefined) {
      throw new UsageError('give new instructions or --clear-instructions, not both', command);
    }
    /** @type {{ name?: string, instructions?: string | null, retention_days?: number | null }} */
    const changes = {};
    if (name !== undefined) changes.name = name;
    if (instructions !== undefined) changes.instructions = instructions;
    if (clear) changes.instructions = null;
    if (retentionDays !== undefined) changes.retention_days = retentionDays;
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        'give --name, --instructions, --instructions-file, --clear-instructions or --retention-days',
        command,
      );
    }
    const api = client();
    const collectionId = await collectionIdOf(api, positionals[0], command);
    const { body } = await api.request('PATCH', collectionPath(collectionId), {
      body: changes,
      what: `${command} ${collectionId}`,
    });
    printJson(body);
    if (retentionDays !== undefined) sayRetention(body, true);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsDelete = {
  name: 'collections delete',
  summary: 'Delete a collection; its notes are kept',
  operation: 'deleteCollection',
  args: ['<collection>'],
  options: {},
  details:
    '<collection> is the collection ID or its name. The notes filed in it are not deleted. Prints\n' +
    'nothing on stdout (HTTP 204).',
  examples: [`notes collections delete ${EXAMPLE_ID}`],
  async run({ positionals, client }) {
    const api = client();
    const collectionId = await collectionIdOf(api, positionals[0], 'collections delete');
    await api.request('DELETE', collectionPath(collectionId), { what: `collections delete ${collectionId}` });
    info(`Deleted collection ${collectionId}; its notes remain.`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsAdd = {
  name: 'collections add',
  summary: 'File notes in a collection (a note can be in several)',
  operation: 'addNoteToCollection',
  args: ['<collection>', '<note-id...>'],
  options: {},
  details:
    '<collection> is the collection ID or its name. Prints, for each note, every collection it is\n' +
    'in now. Filing a note that is already there changes nothing.',
  examples: [`notes collections add Product ${EXAMPLE_NOTE}`],
  async run({ positionals, client }) {
    const command = 'collections add';
    const [collection, ...notes] = positionals;
    if (notes.length === 0) throw new UsageError('give at least one note ID', command);
    const noteIds = notes.map((id) => noteIdArg(id, command));
    const api = client();
    const collectionId = await collectionIdOf(api, collection, command);
    const results = [];
    for (const noteId of noteIds) {
      const { body } = await api.request('POST', `${collectionPath(collectionId)}/notes`, {
        body: { note_id: noteId },
        what: `collections add ${noteId}`,
      });
      results.push(body);
    }
    printJson(results.length === 1 ? results[0] : results);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsRemove = {
  name: 'collections remove',
  summary: 'Take a note out of a collection (the note is kept)',
  operation: 'removeNoteFromCollection',
  args: ['<collection>', '<note-id>'],
  options: {},
  details: '<collection> is the collection ID or its name. Prints every collection the note is still in.',
  examples: [`notes collections remove Product ${EXAMPLE_NOTE}`],
  async run({ positionals, client }) {
    const command = 'collections remove';
    const noteId = noteIdArg(positionals[1], command);
    const api = client();
    const collectionId = await collectionIdOf(api, positionals[0], command);
    const { body } = await api.request(
      'DELETE',
      `${collectionPath(collectionId)}/notes/${encodeURIComponent(noteId)}`,
      { what: `collections remove ${noteId}` },
    );
    printJson(body);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const collectionsGroup = {
  name: 'collections',
  summary:
    'Organise notes in collections: list, create, rename or update (instructions, retention period), delete; add and remove notes.',
  commands: [
    collectionsList,
    collectionsCreate,
    collectionsRename,
    collectionsUpdate,
    collectionsDelete,
    collectionsAdd,
    collectionsRemove,
  ],
};
