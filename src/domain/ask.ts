import type { AnswerEngine, AskPassage } from '../ports/answer-engine.ts';
import { citedSentence } from './cited-sentence.ts';
import { requireCollection } from './collections.ts';
import type { DomainDeps } from './deps.ts';
import { BadRequestError } from './errors.ts';
import { passagesOf, scorePassages } from './passages.ts';
import { type ProcessedNote, processedNotes } from './processed-notes.ts';
import { searchWithin } from './scoped-search.ts';
import { searchTerms } from './search-terms.ts';
import { readTranscriptionOfJob } from './stored-results.ts';
import { withSpeakerNames } from './transcript-exports.ts';

export interface AskDeps extends DomainDeps {
  answers: AnswerEngine;
}

export interface AskQuestion {
  question: string;
  /** Omitted or null: every processed note of the account (or of the collection). */
  note_ids?: string[] | null | undefined;
  /** Only the notes filed in this collection; with note_ids, only the listed notes that are in it. */
  collection_id?: string | null | undefined;
}

export interface AskCitation {
  note_id: string;
  /** The note's title now, so the citation can be shown by name. */
  note_title: string;
  start_ms: number;
  end_ms: number;
  quote: string;
  /** The sentence of the passage the answer rests on (cited-sentence.ts), and when it is said. */
  sentence: string;
  sentence_start_ms: number;
  /** Who speaks in the cited passage, in order of first turn (names the user gave, else labels). */
  speakers: string[];
}

export interface AskAnswer {
  answer: string;
  note_ids: string[];
  citations: AskCitation[];
}

/** Candidate notes taken from the index, then the notes whose passages are read. */
const CANDIDATE_NOTES = 20;
/** A large scope (a big collection) first looks for its notes among this many of the account's best. */
const CANDIDATES_FOR_A_LARGE_SCOPE = 200;
const NOTES_READ = 5;
/** Passages given to the answer engine, and at most this many from one note. */
const PASSAGES_SHOWN = 8;
const PASSAGES_PER_NOTE = 3;
const QUOTE_CHARACTERS = 400;

export const NOTHING_FOUND =
  'None of your processed notes seems to cover this question, so there is nothing to answer from.';

/**
 * Ask: answers from the account's processed notes only. Retrieval reads the index (which notes), then
 * the transcripts of the best few (which passages); the answer engine sees only those passages and its
 * citations are checked against them. Every note is re-checked before it is used: a note trashed or
 * deleted a moment ago is never cited, even if the index has not caught up.
 */
export async function askWorkspace(
  deps: AskDeps,
  accountId: string,
  request: AskQuestion,
): Promise<AskAnswer> {
  const scope = await scopeOf(deps, accountId, request);
  const inScope = scope ? await processedNotes(deps, accountId, scope) : null;
  if (inScope?.size === 0) {
    const listed = request.collection_id ? 'notes in the collection' : 'listed notes';
    throw new BadRequestError(
      `None of the ${listed} is processed: Ask uses notes with a completed transcription that are not in the trash`,
    );
  }
  const { question } = request;
  const terms = searchTerms(question);
  const { hits, idf, indexedNotes } = await searchWithin(deps, accountId, terms, {
    scope: inScope ? new Set(inScope.keys()) : null,
    limit: inScope ? CANDIDATES_FOR_A_LARGE_SCOPE : CANDIDATE_NOTES,
    enough: NOTES_READ,
  });
  if (!inScope && indexedNotes === 0) {
    throw new BadRequestError('There are no processed notes to ask about yet: transcribe a recording first');
  }
  // A scoped question's notes were just checked; otherwise check the hits (the index may lag).
  const notes =
    inScope ??
    (await processedNotes(
      deps,
      accountId,
      hits.map((hit) => hit.note_id),
    ));
  const chosen = hits.filter((hit) => notes.has(hit.note_id)).slice(0, NOTES_READ);
  const passages = await bestPassages(deps, accountId, chosen, notes, terms, idf);
  if (passages.length === 0) return { answer: NOTHING_FOUND, note_ids: [], citations: [] };

  const draft = await deps.answers.answer({ question, passages });
  const byKey = new Map(passages.map((passage) => [`${passage.note_id}@${passage.start_ms}`, passage]));
  const citations: AskCitation[] = [];
  const cited = new Set<string>();
  for (const citation of draft.citations) {
    const key = `${citation.note_id}@${citation.start_ms}`;
    const passage = byKey.get(key);
    if (!passage || cited.has(key)) continue;
    cited.add(key);
    const sentence = citedSentence(passage, draft.answer);
    citations.push({
      note_id: passage.note_id,
      note_title: passage.note_title,
      start_ms: passage.start_ms,
      end_ms: passage.end_ms,
      quote: quoteOf(passage.text),
      sentence: sentence.sentence,
      sentence_start_ms: sentence.start_ms,
      speakers: [...new Set(passage.turns.map((turn) => turn.speaker))],
    });
  }
  return {
    answer: draft.answer,
    note_ids: [...new Set(citations.map((citation) => citation.note_id))],
    citations,
  };
}

/** The note IDs a question is limited to, or null for the whole account. */
async function scopeOf(deps: DomainDeps, accountId: string, request: AskQuestion): Promise<string[] | null> {
  const listed = request.note_ids ? [...new Set(request.note_ids.map((id) => id.toLowerCase()))] : null;
  if (!request.collection_id) return listed;
  await requireCollection(deps, accountId, request.collection_id);
  const filed = await deps.collections.allNotesIn(accountId, request.collection_id);
  if (!listed) return filed;
  const inCollection = new Set(filed);
  return listed.filter((id) => inCollection.has(id));
}

async function bestPassages(
  deps: DomainDeps,
  accountId: string,
  chosen: { note_id: string; score: number }[],
  notes: Map<string, ProcessedNote>,
  terms: string[],
  idf: ReadonlyMap<string, number>,
): Promise<AskPassage[]> {
  const perNote = await Promise.all(
    chosen.map(async ({ note_id }) => {
      // An unreadable transcript is skipped here; reading the note marks its job failed.
      const processed = notes.get(note_id);
      const transcription = await readTranscriptionOfJob(deps, accountId, note_id, processed?.job ?? null);
      if (transcription === 'unreadable') return [];
      const note = processed?.note;
      const note_title = note?.title ?? '';
      // Speakers as the user named them: answers are made now, with the names of now.
      const named = withSpeakerNames(transcription, note?.speaker_names);
      const passages = passagesOf(named).map((passage) => ({ ...passage, note_id, note_title }));
      return scorePassages(passages, terms, idf)
        .filter((scored) => scored.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, PASSAGES_PER_NOTE);
    }),
  );
  // Each note's best passage first, in note order, then the runners-up by score.
  const firsts = perNote.flatMap((list) => list.slice(0, 1));
  const rest = perNote.flatMap((list) => list.slice(1)).sort((a, b) => b.score - a.score);
  return [...firsts, ...rest].slice(0, PASSAGES_SHOWN).map((scored) => scored.passage);
}

function quoteOf(text: string): string {
  if (text.length <= QUOTE_CHARACTERS) return text;
  const cut = text.slice(0, QUOTE_CHARACTERS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
}
