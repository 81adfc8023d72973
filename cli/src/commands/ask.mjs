// @ts-check
import { noteIdArg, stringOption, stringsOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';
import { collectionIdOf } from './collections.mjs';

/** @type {import('../types.mjs').CommandSpec} */
export const ask = {
  name: 'ask',
  summary: "Ask a question across the account's processed notes (answer, note_ids, citations)",
  operation: 'askWorkspace',
  args: ['<question...>'],
  options: {
    note: {
      type: 'string',
      value: 'id',
      multiple: true,
      description: 'Only search this note (default: all processed notes)',
    },
    collection: {
      type: 'string',
      value: 'C',
      description:
        'Only search the notes in this collection (its ID or name); with --note, those of them in it',
    },
  },
  details: 'Words after the question are joined with spaces, so quoting the question is optional.',
  examples: [
    'notes ask "What did we decide about the release date?"',
    'notes ask "Who owns the migration plan?" --note 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34',
    'notes ask "What are the open risks?" --collection Product',
  ],
  async run({ positionals, values, client }) {
    const question = positionals.join(' ').trim();
    if (!question) throw new UsageError('the question must not be empty', 'ask');
    const noteIds = stringsOption(values, 'note').map((id) => noteIdArg(id, 'ask'));
    const api = client();
    const collection = stringOption(values, 'collection');
    const collectionId = collection === undefined ? undefined : await collectionIdOf(api, collection, 'ask');
    const { body } = await api.request('POST', '/v1/ask', {
      body: {
        question,
        ...(noteIds.length ? { note_ids: noteIds } : {}),
        ...(collectionId ? { collection_id: collectionId } : {}),
      },
      what: 'ask',
    });
    printJson(body);
    const supporting = /** @type {{ note_ids?: string[] }} */ (body).note_ids ?? [];
    info(
      supporting.length
        ? `Supporting notes: ${supporting.join(', ')}`
        : 'No processed note covers this question (no supporting notes).',
    );
  },
};
