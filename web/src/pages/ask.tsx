import { useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { useAskThread } from '../ask-thread.ts';
import { ActionFeedback } from '../components/action-feedback.tsx';
import { AskExchange } from '../components/ask-exchange.tsx';
import { useCollections } from '../components/collections.tsx';
import { useApp } from '../context.ts';
import type { AskAnswer } from '../types.ts';

/** Where a question looks: every processed note, one collection, or one note (a follow-up). */
type Scope =
  | { kind: 'all' }
  | { kind: 'collection'; id: string }
  | { kind: 'note'; id: string; title: string };

/**
 * Ask as a conversation: each question and its answer stay for the visit, newest last, also after
 * opening a citation and coming back;
 * a follow-up can be asked of one cited note ("Ask about this note"). Citations open the note at
 * the sentence they rest on.
 */
export function AskPage() {
  const { api } = useApp();
  const collections = useCollections();
  const [question, setQuestion] = useState('');
  const [scope, setScope] = useState<Scope>({ kind: 'all' });
  // Kept for the visit, so Back from a citation finds it (ask-thread.ts).
  const [thread, setThread] = useAskThread();

  const ask = useAction(async () => {
    const asked = question.trim();
    const body =
      scope.kind === 'collection'
        ? { question: asked, collection_id: scope.id }
        : scope.kind === 'note'
          ? { question: asked, note_ids: [scope.id] }
          : { question: asked };
    const { data } = await api.request<AskAnswer>('/v1/ask', { method: 'POST', body });
    setThread((previous) => [
      ...previous,
      { id: (previous.at(-1)?.id ?? -1) + 1, question: asked, scope: scopeWords(scope), answer: data },
    ]);
    setQuestion('');
  });

  const scopeValue = scope.kind === 'all' ? '' : `${scope.kind}:${scope.id}`;
  return (
    <section aria-labelledby="ask-title">
      <h1 id="ask-title">Ask your notes</h1>
      {thread.length > 0 && (
        <ol class="thread" aria-label="Questions and answers of this visit">
          {thread.map((exchange) => (
            <AskExchange
              key={exchange.id}
              exchange={exchange}
              onFollowUp={(noteId, title) => {
                setScope({ kind: 'note', id: noteId, title });
                document.getElementById('question')?.focus();
              }}
            />
          ))}
        </ol>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void ask.run();
        }}
        class="stack"
      >
        <label for="question">{thread.length > 0 ? 'Follow-up question' : 'Question'}</label>
        <textarea
          id="question"
          rows={3}
          maxLength={2000}
          required
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
          // Enter asks, as in a chat; Shift+Enter starts a new line.
          onKeyDown={(event) => {
            if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
            event.preventDefault();
            event.currentTarget.form?.requestSubmit();
          }}
        />
        <label for="ask-scope">Notes to ask</label>
        <select
          id="ask-scope"
          value={scopeValue}
          onChange={(event) => {
            const [kind, id] = event.currentTarget.value.split(':');
            if (kind === 'collection' && id) setScope({ kind: 'collection', id });
            else if (kind !== 'note') setScope({ kind: 'all' });
          }}
        >
          <option value="">All processed notes</option>
          {scope.kind === 'note' && <option value={scopeValue}>Only the note “{scope.title}”</option>}
          {(collections.data ?? []).map((collection) => (
            <option key={collection.collection_id} value={`collection:${collection.collection_id}`}>
              Collection: {collection.name}
            </option>
          ))}
        </select>
        <p>
          <button type="submit" class="primary" disabled={ask.pending || !question.trim()}>
            {ask.pending ? 'Thinking…' : 'Ask'}
          </button>{' '}
          <ActionFeedback action={ask} />
        </p>
      </form>
    </section>
  );
}

function scopeWords(scope: Scope): string | null {
  return scope.kind === 'note' ? `about “${scope.title}”` : null;
}
