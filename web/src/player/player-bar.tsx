import { useEffect, useRef } from 'preact/hooks';
import { clock } from '../format.ts';
import { usePlayback } from './hooks.ts';
import type { Playback } from './playback.ts';
import { useShortcuts } from './shortcuts.ts';

const SKIP_MS = 5000;
const RATES = [0.75, 1, 1.25, 1.5, 1.75, 2];

/**
 * The recording's controls, kept in view at the top of the note while the transcript scrolls: play
 * or pause, back and forward 5 s, speed, where it is, and the way back to the playing moment once
 * the person has scrolled away from it. Until the link to the recording arrives the controls say so;
 * a moment asked for meanwhile plays once it can.
 */
export function PlayerBar({
  playback,
  src,
  fallbackDurationMs,
  onSourceError,
  video = false,
}: {
  playback: Playback;
  src: string | null;
  /** The recording is a video file: its picture is shown above the controls, which stay the same. */
  video?: boolean;
  /** The transcript's length: shown before the recording's own metadata arrives (0: not known). */
  fallbackDurationMs: number;
  onSourceError(): void;
}) {
  const media = useRef<HTMLMediaElement | null>(null);
  const setMedia = (element: HTMLMediaElement | null) => {
    media.current = element;
  };
  useEffect(() => {
    const element = media.current;
    playback.attach(element);
    // A media element taken out of the page plays on, unheard of: leaving the note stops it.
    return () => {
      element?.pause();
      playback.attach(null);
    };
  }, [playback, src, video]);
  useShortcuts(playback);
  const ready = usePlayback(playback, (p) => p.ready);
  const paused = usePlayback(playback, (p) => p.paused);
  const following = usePlayback(playback, (p) => p.following);
  const hasPlayed = usePlayback(playback, (p) => p.positionMs > 0 || !p.paused);
  const rate = usePlayback(playback, (p) => p.rate);
  const label = src ? (ready ? undefined : 'Loading the recording…') : 'Preparing the recording…';
  return (
    <section class="player" aria-label="Player">
      {src &&
        (video ? (
          // biome-ignore lint/a11y/useMediaCaption: the transcript on this page is the recording's text
          <video
            ref={setMedia}
            class="player-video"
            playsInline
            preload="metadata"
            src={src}
            aria-label="Recording"
            onError={onSourceError}
          />
        ) : (
          // biome-ignore lint/a11y/useMediaCaption: the transcript on this page is the recording's text
          <audio ref={setMedia} preload="metadata" src={src} aria-label="Recording" onError={onSourceError} />
        ))}
      <div class="player-controls">
        <button
          type="button"
          class="nudge"
          disabled={!ready}
          onClick={() => playback.skip(-SKIP_MS)}
          aria-keyshortcuts="J ArrowLeft"
        >
          <span aria-hidden="true">↺</span> 5<span class="visually-hidden"> seconds back</span>
        </button>
        <button
          type="button"
          class="play primary"
          disabled={!src}
          onClick={() => playback.toggle()}
          aria-keyshortcuts="Space K"
        >
          {paused ? 'Play' : 'Pause'}
        </button>
        <button
          type="button"
          class="nudge"
          disabled={!ready}
          onClick={() => playback.skip(SKIP_MS)}
          aria-keyshortcuts="L ArrowRight"
        >
          5 <span aria-hidden="true">↻</span>
          <span class="visually-hidden"> seconds forward</span>
        </button>
        <Clock playback={playback} fallbackDurationMs={fallbackDurationMs} />
        <label class="rate">
          <span class="visually-hidden">Speed</span>
          <select
            value={String(rate)}
            onChange={(event) => playback.setRate(Number(event.currentTarget.value))}
          >
            {RATES.map((rate) => (
              <option key={rate} value={String(rate)}>
                {rate}×
              </option>
            ))}
          </select>
        </label>
        {!following && hasPlayed && (
          <button
            type="button"
            class="quiet back-to-moment"
            onClick={() => {
              playback.setFollowing(true);
              focusPlayingRow(playback);
            }}
          >
            Back to the playing moment
          </button>
        )}
        {label && (
          <span class="meta" role="status">
            {label}
          </span>
        )}
      </div>
      <p class="meta shortcuts">Space or K plays and pauses; J and L (or ← →) go 5 s back and forward.</p>
    </section>
  );
}

/** Frames to wait for the playing row of a long transcript to be drawn. */
const WAIT_FRAMES = 120;

/**
 * The button goes once the transcript follows again: the focus goes to the playing segment (so the
 * keyboard carries on from there, not from the top of the page). The transcript scrolls it into view.
 */
function focusPlayingRow(playback: Playback, tries = 0): void {
  const row = document.getElementById(`segment-${playback.playingIndex}`);
  if (row) row.focus({ preventScroll: true });
  else if (tries < WAIT_FRAMES) requestAnimationFrame(() => focusPlayingRow(playback, tries + 1));
}

/** Where the recording is and how long it lasts, with a slider to go anywhere in it. */
function Clock({ playback, fallbackDurationMs }: { playback: Playback; fallbackDurationMs: number }) {
  // Whole seconds: the clock re-renders once a second, not on every time update.
  const second = usePlayback(playback, (p) => Math.floor(p.positionMs / 1000));
  const duration = usePlayback(playback, (p) => p.durationMs) || fallbackDurationMs;
  const ready = usePlayback(playback, (p) => p.ready);
  // A length not known yet (a browser recording not transcribed, until the player has found it) is
  // left unsaid rather than shown as 0:00.
  const of = duration > 0 ? ` / ${clock(duration)}` : '';
  return (
    <>
      <input
        type="range"
        class="position"
        aria-label="Position in the recording"
        aria-valuetext={`${clock(second * 1000)}${duration > 0 ? ` of ${clock(duration)}` : ''}`}
        min={0}
        max={Math.max(1, Math.round(duration / 1000))}
        step={1}
        value={second}
        disabled={!ready}
        onInput={(event) => playback.seek(Number(event.currentTarget.value) * 1000, !playback.paused)}
      />
      <span class="time-shown">
        {clock(second * 1000)}
        {of}
      </span>
    </>
  );
}
