import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { bytes } from '../format.ts';
import { useInterval } from '../hooks.ts';
import { type Destination, useRecorder } from '../recorder/session.tsx';
import { elapsedClock, elapsedMs, isLive, type RecorderState } from '../recorder/state.ts';
import { LevelMeter } from './level-meter.tsx';

/** What a screen reader hears when the recorder changes state (the elapsed time itself is not read out). */
function spoken(state: RecorderState): string {
  switch (state.kind) {
    case 'asking':
      return 'Waiting for the microphone';
    case 'recording':
      return 'Recording';
    case 'paused':
      return 'Recording paused';
    case 'saving':
      return state.stored ? 'Recording uploaded, queuing it for transcription' : 'Uploading the recording';
    default:
      return '';
  }
}

/**
 * Record from the microphone: Record, then the elapsed time, the input level, Pause/Resume, Stop and
 * save, Discard (asked again first). `destination()` says, when Record is pressed, where the note goes
 * (the collection being viewed) or null when the form's fields are not valid.
 */
export function Recorder({ destination }: { destination: () => Destination | null }) {
  const recorder = useRecorder();
  const { state } = recorder;
  const [, setTick] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const [discarded, setDiscarded] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const record = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const discardButton = useRef<HTMLButtonElement>(null);
  const wasLive = useRef(isLive(state));

  useInterval(state.kind === 'recording', 250, () => setTick((tick) => tick + 1));

  // The control pressed goes away: the focus moves to the one that takes its place, in the same task
  // as the change (a layout effect), so no key press lands between the two.
  useLayoutEffect(() => {
    const live = isLive(state);
    if (live && !wasLive.current) first.current?.focus();
    if (!live && wasLive.current && state.kind === 'idle') record.current?.focus();
    wasLive.current = live;
    if (!live && !(state.kind === 'failed' && state.kept)) setConfirming(false);
  }, [state]);
  useLayoutEffect(() => {
    if (confirming) keep.current?.focus();
  }, [confirming]);

  const elapsed = elapsedClock(elapsedMs(state, Date.now()));
  const askDiscard = () => {
    setDiscarded(false);
    setConfirming(true);
  };
  const cancelDiscard = () => {
    setConfirming(false);
    requestAnimationFrame(() => discardButton.current?.focus());
  };
  const confirmDiscard = async () => {
    setConfirming(false);
    await recorder.discard();
    setDiscarded(true);
    record.current?.focus();
  };

  const discardConfirmation = confirming && (
    <form
      class="confirm recorder-confirm"
      aria-label="Discard the recording?"
      onSubmit={(event) => {
        event.preventDefault();
        void confirmDiscard();
      }}
      onKeyDown={(event) => event.key === 'Escape' && cancelDiscard()}
    >
      <p>Discard this recording ({elapsed})? It cannot be undone.</p>
      <span class="recorder-buttons">
        <button type="submit" class="danger">
          Discard recording
        </button>
        <button type="button" ref={keep} onClick={cancelDiscard}>
          {isLive(state) ? 'Keep recording' : 'Keep it'}
        </button>
      </span>
    </form>
  );

  return (
    <div class="recorder">
      <p class="visually-hidden" role="status">
        {discarded && state.kind === 'idle' ? 'Recording discarded' : spoken(state)}
      </p>
      {(state.kind === 'idle' || state.kind === 'asking' || (state.kind === 'failed' && !state.kept)) && (
        <button
          type="button"
          class="record"
          ref={record}
          disabled={state.kind === 'asking'}
          onClick={() => {
            const to = destination();
            setDiscarded(false);
            if (to) void recorder.start(to);
          }}
        >
          <span class="record-dot" aria-hidden="true" />
          {state.kind === 'asking' ? 'Opening the microphone…' : 'Record'}
        </button>
      )}
      {state.kind === 'failed' && !state.kept && (
        <p role="alert" class="error">
          {state.message}
        </p>
      )}
      {isLive(state) && (
        <div class="recorder-panel">
          <p class="recorder-clock">
            <span class={`record-dot${state.kind === 'paused' ? ' paused' : ''}`} aria-hidden="true" />
            <span>{state.kind === 'paused' ? 'Paused' : 'Recording'}</span>{' '}
            <span role="timer" aria-label="Time recorded">
              {elapsed}
            </span>
          </p>
          <LevelMeter level={recorder.level} active={state.kind === 'recording'} />
          {!recorder.keeping && (
            <p class="meta">
              This browser cannot keep the recording as it goes: closing the page before it is saved loses it.
            </p>
          )}
          <div class="recorder-buttons">
            <button
              type="button"
              ref={first}
              onClick={state.kind === 'paused' ? recorder.resume : recorder.pause}
            >
              {state.kind === 'paused' ? 'Resume' : 'Pause'}
            </button>
            <button type="button" class="primary" onClick={() => void recorder.stop()}>
              Stop and save
            </button>
            <button type="button" class="danger" ref={discardButton} onClick={askDiscard}>
              Discard
            </button>
          </div>
          {discardConfirmation}
        </div>
      )}
      {state.kind === 'saving' && (
        <div class="recorder-panel progress-line">
          <label for="recording-upload">{savingWords(state, elapsed)}</label>
          <progress
            id="recording-upload"
            max={state.total || 1}
            value={state.total ? state.sent : undefined}
          />
        </div>
      )}
      {state.kind === 'failed' && state.kept && (
        <div class="recorder-panel">
          <p role="alert" class="error">
            The recording ({elapsed}) could not be saved: {state.message} It is kept in this browser: try
            again now, or it is offered again on your next visit.
          </p>
          <div class="recorder-buttons">
            <button type="button" class="primary" onClick={() => void recorder.retry()}>
              Try again
            </button>
            <button type="button" class="danger" ref={discardButton} onClick={askDiscard}>
              Discard
            </button>
          </div>
          {discardConfirmation}
        </div>
      )}
    </div>
  );
}

/**
 * Where the saving is, in the order it happens: the file is uploaded by this browser, then queued by
 * the service. (Nothing here waits for an upload: this browser is the one making it.)
 */
function savingWords(state: Extract<RecorderState, { kind: 'saving' }>, elapsed: string): string {
  if (state.stored) return `Recording uploaded (${elapsed}); queuing it for transcription…`;
  if (state.total > 0)
    return `Uploading the recording (${elapsed}): ${bytes(state.sent)} of ${bytes(state.total)}`;
  return `Preparing the recording (${elapsed})…`;
}
