import { useState } from 'preact/hooks';
import { useCollections } from '../components/collections.tsx';
import { useApp } from '../context.ts';
import { clock } from '../format.ts';
import { messageOf } from '../hooks.ts';
import { href } from '../router.ts';
import type { AskAnswer } from '../types.ts';

/** A question across the processed notes (or one collection's), answered with its supporting notes. */
export function AskPage() {
  const { api } = useApp();
  const collections = useCollections();
  const [question, setQuestion] = useState('');
  const [collectionId, setCollectionId] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<AskAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);

  const ask = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.request<AskAnswer>('/v1/ask', {
        method: 'POST',
        body: { question: question.trim(), ...(collectionId ? { collection_id: collectionId } : {}) },
      });
      setAnswer(data);
    } catch (reason) {
      setError(messageOf(reason));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="ask-title">
      <h1 id="ask-title">Ask your notes</h1>
      <form onSubmit={ask} class="stack">
        <label for="question">Question</label>
        <textarea
          id="question"
          rows={3}
          maxLength={2000}
          required
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
        />
        <label for="ask-scope">Notes to ask</label>
        <select
          id="ask-scope"
          value={collectionId}
          onChange={(event) => setCollectionId(event.currentTarget.value)}
        >
          <option value="">All processed notes</option>
          {(collections.data ?? []).map((collection) => (
            <option key={collection.collection_id} value={collection.collection_id}>
              Collection: {collection.name}
            </option>
          ))}
        </select>
        <button type="submit" class="primary" disabled={busy || !question.trim()}>
          {busy ? 'Thinking…' : 'Ask'}
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div aria-live="polite">
        {answer && (
          <div class="answer">
            <h2>Answer</h2>
            <p>{answer.answer}</p>
            <h3>Supported by</h3>
            <ul>
              {answer.citations.map((citation) => (
                <li key={`${citation.note_id}-${citation.start_ms}`}>
                  <q>{citation.quote}</q>{' '}
                  <a href={href(`notes/${citation.note_id}`, { t: citation.start_ms })}>
                    Open the note at {clock(citation.start_ms)}
                  </a>
                </li>
              ))}
            </ul>
            <p class="meta">
              Supporting notes:{' '}
              {answer.note_ids.map((id, index) => (
                <span key={id}>
                  {index > 0 && ', '}
                  <a href={href(`notes/${id}`)}>{id.slice(0, 8)}</a>
                </span>
              ))}
            </p>
          </div>
        )}
      </div>
    </section>
  );
}
