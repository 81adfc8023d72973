import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../hooks.ts';
import type { KeptRecording } from '../recorder/kept-recordings.ts';
import { type Destination, useRecorder } from '../recorder/session.tsx';
import { elapsedClock } from '../recorder/state.ts';

/**
 * Recordings this browser kept that were never saved (the tab closed while recording, or the upload
 * failed and the page was left): each can be saved as a note, or discarded after a second question.
 */
export function UnfinishedRecordings({ destination }: { destination: () => Destination | null }) {
  const recorder = useRecorder();
  const [kept, setKept] = useState<KeptRecording[]>([]);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const idle = recorder.state.kind === 'idle';

  useEffect(() => {
    let live = true;
    recorder.unfinished().then(
      (found) => live && setKept(found),
      // Without IndexedDB or the account there is nothing to offer; the recorder says why elsewhere.
      () => live && setKept([]),
    );
    return () => {
      live = false;
    };
    // Reloaded when a recording is saved or discarded, or this tab's own recording ends.
  }, [recorder.unfinished, recorder.keptVersion, idle]);

  if (kept.length === 0) return null;
  const save = (recording: KeptRecording) => {
    const to = destination();
    if (to) void recorder.saveKept(recording, to);
  };
  const discard = async (recording: KeptRecording) => {
    setError(null);
    try {
      await recorder.discardKept(recording);
      setConfirming(null);
    } catch (reason) {
      setError(messageOf(reason));
    }
  };
  return (
    <section class="unfinished" aria-labelledby="unfinished-title">
      <h3 id="unfinished-title">Recordings not saved yet</h3>
      <p class="meta">
        Kept in this browser when the page closed (or the upload failed) before they became notes.
      </p>
      <ul>
        {kept.map((recording) => (
          <li key={recording.id} class="unfinished-item">
            <span id={`kept-${recording.id}`}>
              {recording.title} <span class="meta">({elapsedClock(recording.elapsedMs)} recorded)</span>
            </span>
            {confirming === recording.id ? (
              <span class="confirm">
                <span>Discard it? It cannot be undone.</span>
                <button type="button" class="danger" onClick={() => void discard(recording)}>
                  Discard recording
                </button>
                <button type="button" onClick={() => setConfirming(null)}>
                  Keep it
                </button>
              </span>
            ) : (
              <span class="unfinished-actions">
                <button
                  type="button"
                  class="primary"
                  disabled={!idle}
                  aria-describedby={`kept-${recording.id}`}
                  onClick={() => save(recording)}
                >
                  Save as a note
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={!idle}
                  aria-describedby={`kept-${recording.id}`}
                  onClick={() => setConfirming(recording.id)}
                >
                  Discard
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
