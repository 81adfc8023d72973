import * as z from '../../domain/zod-mini.ts';
import type { AnswerDraft, AskPassage } from '../../ports/answer-engine.ts';
import { GenerationFailedError } from '../../ports/generation-errors.ts';
import { parseModelOutput, parseWith } from './model-output.ts';

/** What a model answers to a question: the text, and the passages it relies on. */
export const answerDraftSchema = z.object({
  answer: z.string().check(z.minLength(1), z.maxLength(8000)),
  citations: z.array(
    z.object({
      note_id: z.string().check(z.minLength(1), z.maxLength(200)),
      start_ms: z.number().check(z.int(), z.nonnegative()),
    }),
  ),
});

/**
 * Checks a model's answer against the passages it was shown. Citations are kept only when they name a
 * shown passage exactly (note and `start_ms`), once each. An answer that cites nothing is the model
 * saying the notes do not answer; an answer whose every citation is invented is not trusted at all.
 * Error messages name what is wrong, never quote the output.
 */
export function validateAnswer(output: unknown, passages: readonly AskPassage[]): AnswerDraft {
  const parsed = parseWith(answerDraftSchema, parseModelOutput(output), 'answer');
  const answer = parsed.answer.trim();
  if (answer === '') throw new GenerationFailedError('The answer is empty');
  const key = (citation: { note_id: string; start_ms: number }) => `${citation.start_ms} ${citation.note_id}`;
  const given = new Set(passages.map(key));
  const seen = new Set<string>();
  const citations: AnswerDraft['citations'] = [];
  for (const citation of parsed.citations) {
    const id = key(citation);
    if (!given.has(id) || seen.has(id)) continue;
    seen.add(id);
    citations.push({ note_id: citation.note_id, start_ms: citation.start_ms });
  }
  if (parsed.citations.length > 0 && citations.length === 0) {
    throw new GenerationFailedError(
      'The answer cites only passages it was not given; cite a passage by the note_id and start_ms in its brackets',
    );
  }
  return { answer, citations };
}
