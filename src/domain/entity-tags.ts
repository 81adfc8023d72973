import { createHash } from 'node:crypto';
import { BadRequestError } from './errors.ts';

/**
 * Entity tags (RFC 9110 §8.8.3) and the preconditions that name them (If-Match, If-None-Match).
 *
 * A tag is a digest of the exact bytes of one representation, so it is strong (it changes whenever
 * any byte of that representation changes) and opaque (it tells nothing of the content). Each
 * representation has its own: a transcript as JSON and as SubRip have different tags.
 */

/** `*` (any current representation) or the entity tags listed, as sent. */
export type TagCondition = { kind: 'any' } | { kind: 'tags'; tags: readonly SentTag[] };

export interface SentTag {
  weak: boolean;
  /** With its quotes, e.g. `"xyz"`. */
  opaque: string;
}

/** 128 bits of SHA-256 in base64url: collisions are out of reach, the header stays short. */
export function entityTagOf(representation: string): string {
  return `"${digestOf(representation)}"`;
}

/**
 * A tag in two parts, `"<part>.<whole>"`, for a representation that shows more than a change of it
 * depends on (a transcript shows the note's speaker names; a note embeds its transcript): `whole`
 * digests every byte, so the tag is still strong and If-None-Match still sees every change; `part`
 * digests what a change of the resource depends on, which If-Match compares (`matchesPartOf`).
 */
export function partedEntityTag(part: unknown, whole: unknown): string {
  return `"${digestOf(JSON.stringify(part))}.${digestOf(JSON.stringify(whole))}"`;
}

/** If-Match against the part of a parted tag: `*`, or a strong tag whose part is current's. */
export function matchesPartOf(condition: TagCondition, current: string): boolean {
  if (condition.kind === 'any') return true;
  const part = partOf(current);
  return part !== null && condition.tags.some((tag) => !tag.weak && partOf(tag.opaque) === part);
}

function partOf(opaque: string): string | null {
  return /^"([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+"$/.exec(opaque)?.[1] ?? null;
}

function digestOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);
}

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/**
 * Parses an If-Match / If-None-Match value (`*` or a comma-separated list of entity tags). A value
 * that is neither is refused with 400: it cannot name any representation, and ignoring it would
 * silently drop the protection the client asked for.
 */
export function parseTagCondition(value: string, name: string): TagCondition {
  const trimmed = value.trim();
  if (trimmed === '*') return { kind: 'any' };
  const tags: SentTag[] = [];
  for (const member of trimmed.split(',')) {
    const item = member.trim();
    if (item === '') continue; // list syntax allows empty elements (RFC 9110 §5.6.1)
    const match = ENTITY_TAG.exec(item);
    if (!match?.[2]) {
      throw new BadRequestError(
        `${name} must be "*" or entity tags exactly as an ETag header gave them, quotes included (e.g. ${name}: "Xk3…"), separated by commas`,
      );
    }
    tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  if (tags.length === 0) throw new BadRequestError(`${name} is empty: send "*" or an entity tag`);
  return { kind: 'tags', tags };
}

/** If-Match: strong comparison, so a weak tag never matches (RFC 9110 §13.1.1). */
export function matchesStrongly(condition: TagCondition, current: string): boolean {
  return condition.kind === 'any' || condition.tags.some((tag) => !tag.weak && tag.opaque === current);
}

/** If-None-Match: weak comparison, the W/ prefix is ignored (RFC 9110 §13.1.2). */
export function matchesWeakly(condition: TagCondition, current: string): boolean {
  return condition.kind === 'any' || condition.tags.some((tag) => tag.opaque === current);
}
