import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dictionaryFor,
  dictionaryForModel,
  languageModelWords,
} from '../../src/adapters/speech/model-dictionary.ts';

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const LM = join(MODEL_DIR, 'en-us.lm.bin');
const DICT = join(MODEL_DIR, 'cmudict-en-us.dict');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-dictionary-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("pocketsphinx gets only the dictionary entries of its language model's words", () => {
  it("reads every word of Debian's trie language model, as many as its header counts", async () => {
    const words = (await languageModelWords(LM)) ?? [];
    const header = await readFile(LM);
    expect(words).toHaveLength(header.readUInt32LE('Trie Language Model'.length + 1));
    expect(words).toEqual(expect.arrayContaining(['<s>', '</s>', 'meeting', 'budget', "don't"]));
  });

  it('keeps the entries of the given words with their alternative pronunciations, and nothing else', () => {
    const dictionary = ['read R IY D', 'read(2) R EH D', 'reed R IY D', 'red R EH D', ''].join('\n');
    expect(dictionaryFor(dictionary, new Set(['read', 'red', 'absent']))).toEqual({
      text: 'read R IY D\nread(2) R EH D\nred R EH D\n',
      known: 2,
    });
  });

  it("writes the smaller dictionary once, and keeps the full one for a model that is not a trie or not the dictionary's", async () => {
    const path = await dictionaryForModel(DICT, LM, dir);
    expect(path).not.toBe(DICT);
    const lines = (await readFile(path, 'latin1')).split('\n').length;
    expect(lines).toBeGreaterThan(70_000);
    expect(lines).toBeLessThan(100_000);
    expect(await dictionaryForModel(DICT, LM, dir)).toBe(path);

    const textModel = join(dir, 'model.lm');
    await writeFile(textModel, '\\data\\\nngram 1=2\n');
    expect(await dictionaryForModel(DICT, textModel, dir)).toBe(DICT);
    const otherDictionary = join(dir, 'other.dict');
    await writeFile(otherDictionary, 'zzyzx Z IH Z IH K S\n');
    expect(await dictionaryForModel(otherDictionary, LM, dir)).toBe(otherDictionary);
  });
});
