import { createHash } from 'node:crypto';
import type { IndexedDocument, IndexPartition } from '../../ports/search-index.ts';

/**
 * A note's entry in the search index: what the note's postings and the counters hold for it, and
 * which content that is. See search-index.ts for how writers use it.
 *
 * `indexed`: the postings are exactly `tfs` (each carrying `posted_length` as the note's length) and
 * the counters count the note once, with `length` and one df per term. `writing`: a writer is moving
 * the note to `tfs`; the postings of terms outside `pending` are already right, the counters hold the
 * terms of `tfs` except `uncounted`, plus `overcounted`, and `counted_length` / `counted_doc`.
 * `removing`: the note is being taken out.
 *
 * `version` orders contents (newest wins; see syncNoteIndex), `digest` tells two contents apart.
 */
export type EntryState = 'writing' | 'indexed' | 'removing';

export interface IndexEntry {
  state: EntryState;
  partition: IndexPartition;
  version: number;
  digest: string;
  tfs: Record<string, number>;
  length: number;
  posted_length: number;
  pending: string[];
  uncounted: string[];
  overcounted: string[];
  counted_length: number;
  counted_doc: boolean;
  /** Written before contents were versioned: its postings and counters are read as a writer's. */
  legacy?: true;
}

/** A note's postings are all rewritten with its new length once it drifts this far from theirs. */
const LENGTH_DRIFT = 0.1;

/** Identifies a content: its terms and their frequencies (what the index holds of it). */
export function digestOf(document: IndexedDocument): string {
  const hash = createHash('sha256');
  for (const [term, tf] of [...document.terms].sort(([a], [b]) => (a < b ? -1 : 1)))
    hash.update(`${term}:${tf}\n`);
  return hash.digest('base64url').slice(0, 22);
}

/**
 * The entry a writer of `document` starts from, given the entry it found (null: none): only the terms
 * whose postings may differ are pending, and the counters' state carries over, so a one-word
 * correction rewrites a few postings and counters rather than the note.
 */
export function claimFrom(
  found: IndexEntry | null,
  document: IndexedDocument,
  partition: IndexPartition,
): IndexEntry {
  const tfs = Object.fromEntries(document.terms);
  const target = {
    state: 'writing' as const,
    partition,
    version: document.version ?? 0,
    digest: digestOf(document),
    tfs,
    length: document.length,
  };
  if (!found) {
    return {
      ...target,
      posted_length: document.length,
      pending: Object.keys(tfs),
      uncounted: Object.keys(tfs),
      overcounted: [],
      counted_length: 0,
      counted_doc: false,
    };
  }
  const counted = countedTerms(found);
  const rewriteAll =
    Math.abs(document.length - found.posted_length) > LENGTH_DRIFT * Math.max(found.posted_length, 1);
  const pending = new Set(found.pending);
  for (const term of new Set([...Object.keys(found.tfs), ...Object.keys(tfs)])) {
    if (rewriteAll || found.tfs[term] !== tfs[term]) pending.add(term);
  }
  return {
    ...target,
    posted_length: rewriteAll ? document.length : found.posted_length,
    pending: [...pending],
    uncounted: Object.keys(tfs).filter((term) => !counted.has(term)),
    overcounted: [...counted].filter((term) => !(term in tfs)),
    counted_length: settled(found) ? found.length : found.counted_length,
    counted_doc: settled(found) || found.counted_doc,
  };
}

/** The terms the df counters count for this note. */
export function countedTerms(entry: IndexEntry): Set<string> {
  if (settled(entry)) return new Set(Object.keys(entry.tfs));
  const uncounted = new Set(entry.uncounted);
  return new Set([...Object.keys(entry.tfs).filter((term) => !uncounted.has(term)), ...entry.overcounted]);
}

/** Indexed, and recorded as such: postings and counters are exactly its content. */
export function settled(entry: IndexEntry): boolean {
  return entry.state === 'indexed' && !entry.legacy;
}

/** Every term that may have a posting of this note. */
export function postedTerms(entry: IndexEntry): string[] {
  return [...new Set([...Object.keys(entry.tfs), ...entry.pending])];
}

export function parseEntry(item: Record<string, unknown>): IndexEntry {
  const state = item.state as EntryState;
  const length = Number(item.length ?? 0);
  const base = {
    state,
    partition: (item.partition as IndexPartition | undefined) ?? 'active',
    version: Number(item.version ?? 0),
    digest: String(item.digest ?? ''),
    length,
    posted_length: Number(item.posted_length ?? length),
  };
  if (item.tfs) {
    return {
      ...base,
      tfs: item.tfs as Record<string, number>,
      pending: (item.pending as string[] | undefined) ?? [],
      uncounted: (item.uncounted as string[] | undefined) ?? [],
      overcounted: (item.overcounted as string[] | undefined) ?? [],
      counted_length: Number(item.counted_length ?? 0),
      counted_doc: item.counted_doc === true,
    };
  }
  // An entry written before contents were versioned lists its terms, not their frequencies: every
  // posting is unknown (pending) and, when counted, every term is counted.
  const terms = (item.terms as string[] | undefined) ?? [];
  const counted = item.counted === true;
  return {
    ...base,
    legacy: true,
    tfs: {},
    pending: terms,
    uncounted: [],
    overcounted: counted ? terms : [],
    counted_length: counted ? length : 0,
    counted_doc: counted,
  };
}

/** The condition that the stored entry is still `entry` (null: absent) as it was read. */
export function unchangedSince(entry: IndexEntry | null): {
  condition: string;
  values: Record<string, unknown>;
} {
  if (!entry) return { condition: 'attribute_not_exists(pk)', values: {} };
  if (entry.legacy) {
    return {
      condition: '#state = :was_state AND attribute_not_exists(version)',
      values: { ':was_state': entry.state },
    };
  }
  return {
    condition: '#state = :was_state AND version = :was_version AND digest = :was_digest',
    values: { ':was_state': entry.state, ':was_version': entry.version, ':was_digest': entry.digest },
  };
}
