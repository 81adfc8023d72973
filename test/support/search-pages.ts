import { expect } from 'vitest';
import type { Api } from './api.ts';

export interface SearchPage {
  results: Array<{ note: { note_id: string } }>;
  next_cursor: string | null;
}

/** Follows searchNotes' cursor from the first page to the last (at most `maxPages`), every page a 200. */
export async function searchPages(
  api: Api,
  params: Record<string, string>,
  maxPages = 10,
): Promise<SearchPage[]> {
  const pages: SearchPage[] = [];
  let cursor: string | null = null;
  do {
    const query: URLSearchParams = new URLSearchParams({ ...params, ...(cursor ? { cursor } : {}) });
    const page: { status: number; body: SearchPage } = await api<SearchPage>('GET', `/v1/search?${query}`);
    expect(page.status).toBe(200);
    pages.push(page.body);
    cursor = page.body.next_cursor;
  } while (cursor && pages.length < maxPages);
  return pages;
}

/** The note IDs of the pages, in order. */
export function noteIdsOf(pages: SearchPage[]): string[] {
  return pages.flatMap((page) => page.results.map((result) => result.note.note_id));
}
