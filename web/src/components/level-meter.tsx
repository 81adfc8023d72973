import { useEffect, useRef, useState } from 'preact/hooks';

/** Below this RMS (about -50 dBFS) for QUIET_MS while recording, the microphone is taken to hear nothing. */
const SILENT_RMS = 0.003;
const QUIET_MS = 3000;
/** The meter shows the last 60 dB: speech sits in its upper half, a quiet room near the bottom. */
const RANGE_DB = 60;

/**
 * The input level as a bar, redrawn every frame without re-rendering (the bar's width is set
 * directly); when nothing is heard for a few seconds it says so, in words screen readers hear too.
 */
export function LevelMeter({ level, active }: { level: () => number; active: boolean }) {
  const fill = useRef<HTMLDivElement>(null);
  const [quiet, setQuiet] = useState(false);
  useEffect(() => {
    if (!active) {
      fill.current?.style.setProperty('transform', 'scaleX(0)');
      setQuiet(false);
      return;
    }
    let frame = 0;
    let silentSince: number | null = null;
    const draw = (now: number) => {
      const rms = level();
      const db = 20 * Math.log10(Math.max(rms, 1e-6));
      const shown = Math.min(1, Math.max(0, (db + RANGE_DB) / RANGE_DB));
      fill.current?.style.setProperty('transform', `scaleX(${shown.toFixed(3)})`);
      if (rms >= SILENT_RMS) silentSince = null;
      else silentSince ??= now;
      setQuiet(silentSince !== null && now - silentSince >= QUIET_MS);
      frame = requestAnimationFrame(draw);
    };
    frame = requestAnimationFrame(draw);
    return () => cancelAnimationFrame(frame);
  }, [active, level]);
  return (
    <>
      <div class="level-meter" aria-hidden="true">
        <div class="level-fill" ref={fill} />
      </div>
      <p class="meta level-quiet" aria-live="polite">
        {quiet ? 'No sound is reaching the microphone. Check that it is on and not muted.' : ''}
      </p>
    </>
  );
}
