// @ts-check
import { isUuid, noteIdArg } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';

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

/** @param {string} collectionId */
function collectionPath(collectionId) {
  return `/v1/collections/${encodeURIComponent(collectionId)}`;
}

/** @type {import('../types.mjs').CommandSpec} */
export const collectionsList = {
  name: 'collections list',
  summary: 'List every collection, by name',
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
  summary: 'Create a collection (names are unique, 1 to 100 characters)',
  operation: 'createCollection',
  args: ['<name>'],
  options: {},
  examples: ["notes collections create 'Product'"],
  async run({ positionals, client }) {
    const name = positionals[0] ?? '';
    if (!name.trim()) throw new UsageError('the name must not be empty', 'collections create');
    const { body } = await client().request('POST', '/v1/collections', {
      body: { name },
      what: 'collections create',
    });
    printJson(body);
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
  summary: 'Organise notes in collections: list, create, rename, delete; add and remove notes.',
  commands: [
    collectionsList,
    collectionsCreate,
    collectionsRename,
    collectionsDelete,
    collectionsAdd,
    collectionsRemove,
  ],
};
