import { byName, type Collection, type CollectionRef } from './collection.ts';

/**
 * Instructions per collection: a collection can say what the Insights and artifacts of its notes
 * should bring out ("Action items only", "A recipe: ingredients, then steps"). The text engines get
 * the instructions of every collection the note is in, each labelled with its collection's name, in
 * the order listCollections lists the collections (by name). The LLM engines follow them as the
 * user's preferences within their rules; the local extractive engine cannot follow them, and its
 * results say so. A result records the instructions it was made with and reads as outdated once the
 * note's collections carry other ones.
 */

/** One collection's instructions as an engine is given them. */
export interface CollectionInstruction {
  /** The collection's name: the label of the instructions. */
  collection: string;
  text: string;
}

/** What a result records of the instructions it was made with. */
export interface GivenInstructions {
  collection_id: string;
  name: string;
  text: string;
}

/** Stored with Insights and artifacts; shown as `collection_instructions`. */
export interface MadeWithInstructions {
  /** In the order given; absent on results made before instructions existed (read as none). */
  instructions?: GivenInstructions[];
  /** Whether the engine could follow them (the local extractive engine cannot). */
  instructions_followed?: boolean;
}

/** What a result shows of them: which collections' instructions it was given, and whether they were followed. */
export interface InstructionsUsed {
  followed: boolean;
  collections: CollectionRef[];
}

/** The instructions of these collections, in the stated order: by name, as listCollections lists them. */
export function instructionsOf(collections: readonly Collection[]): GivenInstructions[] {
  return [...collections]
    .sort(byName)
    .flatMap((collection) =>
      collection.instructions
        ? [{ collection_id: collection.collection_id, name: collection.name, text: collection.instructions }]
        : [],
    );
}

/** As an engine gets them: labelled with the collection's name. */
export function forEngine(given: readonly GivenInstructions[]): CollectionInstruction[] {
  return given.map((instructions) => ({ collection: instructions.name, text: instructions.text }));
}

export function madeWith(given: GivenInstructions[], followed: boolean): MadeWithInstructions {
  return { instructions: given, instructions_followed: followed };
}

/**
 * Whether the note's collections now carry other instructions than the result was made with: one
 * edited or cleared, or the note filed in or taken out of a collection with instructions. A rename
 * alone changes nothing (the same collection, the same text).
 */
export function instructionsChanged(
  made: readonly GivenInstructions[] | undefined,
  now: readonly GivenInstructions[],
): boolean {
  const before = made ?? [];
  if (before.length !== now.length) return true;
  const texts = new Map(now.map((instructions) => [instructions.collection_id, instructions.text]));
  return before.some((instructions) => texts.get(instructions.collection_id) !== instructions.text);
}

/** What the result shows: null when it was made with none; names as the collections are called now. */
export function instructionsUsed(
  made: MadeWithInstructions,
  filed: readonly Collection[],
): InstructionsUsed | null {
  const given = made.instructions ?? [];
  if (given.length === 0) return null;
  const names = new Map(filed.map((collection) => [collection.collection_id, collection.name]));
  return {
    followed: made.instructions_followed ?? true,
    collections: given.map((instructions) => ({
      collection_id: instructions.collection_id,
      name: names.get(instructions.collection_id) ?? instructions.name,
    })),
  };
}
