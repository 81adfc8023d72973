import { withAppTimes } from '../answer-times.ts';
import { clock } from '../format.ts';
import { href } from '../router.ts';
import type { AskAnswer } from '../types.ts';

/** One question of the visit and the answer it got. */
export interface Exchange {
  id: number;
  question: string;
  /** Said when the question was limited to one note ("about “Standup”"). */
  scope: string | null;
  answer: AskAnswer;
}

/**
 * A question and its answer in the Ask thread. Each citation quotes the sentence the answer rests
 * on and opens its note at that sentence; the supporting notes are named by title, each with a way
 * to ask a follow-up of that note alone.
 */
export function AskExchange({
  exchange,
  onFollowUp,
}: {
  exchange: Exchange;
  onFollowUp(noteId: string, title: string): void;
}) {
  const { answer } = exchange;
  const titles = new Map(answer.citations.map((citation) => [citation.note_id, citation.note_title]));
  const titleOf = (noteId: string) => titles.get(noteId)?.trim() || 'Untitled note';
  return (
    <li class="exchange">
      <p class="question">
        <span class="visually-hidden">You asked{exchange.scope ? ` ${exchange.scope}` : ''}: </span>
        {exchange.question}
        {exchange.scope && <span class="meta"> ({exchange.scope})</span>}
      </p>
      <div class="answer">
        <p>{withAppTimes(answer.answer)}</p>
        {answer.citations.length > 0 && (
          <>
            <h2 class="small">Supported by</h2>
            <ul>
              {answer.citations.map((citation) => (
                <li key={`${citation.note_id}-${citation.start_ms}`}>
                  <q>{citation.sentence}</q>{' '}
                  <a href={href(`notes/${citation.note_id}`, { t: citation.sentence_start_ms })}>
                    Open “{titleOf(citation.note_id)}” at {clock(citation.sentence_start_ms)}
                  </a>
                </li>
              ))}
            </ul>
          </>
        )}
        {answer.note_ids.length > 0 && (
          <p class="meta">
            Supporting notes:{' '}
            {answer.note_ids.map((id, index) => (
              <span key={id}>
                {index > 0 && ', '}
                <a href={href(`notes/${id}`)}>{titleOf(id)}</a>{' '}
                <button type="button" class="quiet" onClick={() => onFollowUp(id, titleOf(id))}>
                  Ask about this note<span class="visually-hidden"> (“{titleOf(id)}”)</span>
                </button>
              </span>
            ))}
          </p>
        )}
      </div>
    </li>
  );
}
