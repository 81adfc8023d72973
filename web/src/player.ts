import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * One audio element per page and where it is. Citations, segments and chapters all play through
 * `playFrom`, so every "play this moment" behaves the same.
 */
export interface Player {
  ref: { current: HTMLAudioElement | null };
  positionMs: number;
  playFrom(ms: number): void;
}

export function usePlayer(): Player {
  const ref = useRef<HTMLAudioElement | null>(null);
  const [positionMs, setPositionMs] = useState(0);
  useEffect(() => {
    const audio = ref.current;
    if (!audio) return;
    const update = () => setPositionMs(Math.round(audio.currentTime * 1000));
    audio.addEventListener('timeupdate', update);
    audio.addEventListener('seeked', update);
    return () => {
      audio.removeEventListener('timeupdate', update);
      audio.removeEventListener('seeked', update);
    };
  });
  return {
    ref,
    positionMs,
    playFrom(ms: number) {
      const audio = ref.current;
      if (!audio) return;
      audio.currentTime = ms / 1000;
      setPositionMs(ms);
      void audio.play().catch(() => undefined); // a browser may refuse autoplay; the position is set
    },
  };
}
