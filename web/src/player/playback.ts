import { probeDuration } from './duration-probe.ts';

/**
 * Where the recording is, kept outside every component's state: during playback only what listens
 * re-renders (the player's clock, the playing segment and its word), never the whole note page.
 *
 * Citations, segments, words and chapters all play through `playFrom`, so every "play this moment"
 * behaves the same, and a moment asked for before the recording can play is played once it can.
 */
export interface Player {
  playFrom(ms: number): void;
}

type Listener = () => void;

interface Span {
  start_ms: number;
  end_ms: number;
}

export class Playback implements Player {
  private media: HTMLMediaElement | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly segmentListeners = new Map<number, Set<Listener>>();
  private spans: readonly Span[] = [];
  /** A moment asked for before the recording could seek: taken up when its metadata arrives. */
  private waiting: { ms: number; play: boolean } | null = null;
  private positionNow = 0;
  private playingNow = -1;
  private followingNow = true;
  /** Finding the length of a recording whose header does not say it: its seeks are not the person's. */
  private probing = false;
  private readonly detach: Array<() => void> = [];

  get positionMs(): number {
    return this.positionNow;
  }
  /** The index of the segment being heard (the last one started), or -1 before the first. */
  get playingIndex(): number {
    return this.playingNow;
  }
  /** Whether the transcript keeps the playing segment in view (until the person scrolls away). */
  get following(): boolean {
    return this.followingNow;
  }
  get paused(): boolean {
    return this.media?.paused ?? true;
  }
  get ready(): boolean {
    return !this.probing && (this.media?.readyState ?? 0) >= HTMLMediaElement.HAVE_METADATA;
  }
  /** The recording's length, or 0 while it is not known. */
  get durationMs(): number {
    const seconds = this.media?.duration ?? Number.NaN;
    return Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0;
  }
  get rate(): number {
    return this.media?.playbackRate ?? 1;
  }

  /** The media element now playing the note (null when it goes); a waiting moment is played on it. */
  attach(media: HTMLMediaElement | null): void {
    for (const undo of this.detach.splice(0)) undo();
    this.probing = false;
    this.media = media;
    if (!media) return;
    const update = () => {
      if (!this.probing) this.moveTo(Math.round(media.currentTime * 1000));
    };
    let probed = false;
    const metadata = () => {
      if (this.probing) return;
      // Once: a browser that learnt no length from the probe shows none, and plays all the same.
      if (media.duration === Number.POSITIVE_INFINITY && !probed) {
        probed = true;
        this.probing = true;
        this.detach.push(
          probeDuration(media, () => {
            this.probing = false;
            metadata();
          }),
        );
        return;
      }
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting) this.seekMedia(media, waiting.ms, waiting.play);
      this.notify();
    };
    const changed = () => this.notify();
    const events: Array<[string, Listener]> = [
      ['timeupdate', update],
      ['seeked', update],
      ['loadedmetadata', metadata],
      ['play', changed],
      ['pause', changed],
      ['ratechange', changed],
      ['durationchange', changed],
    ];
    for (const [name, listener] of events) {
      media.addEventListener(name, listener);
      this.detach.push(() => media.removeEventListener(name, listener));
    }
    if (media.readyState >= HTMLMediaElement.HAVE_METADATA) metadata();
  }

  /** Plays from `ms` now, or as soon as the recording can; the transcript follows from there. */
  playFrom(ms: number): void {
    this.seek(ms, true);
  }

  /** Goes to `ms` without starting (a cited moment opened from a link). */
  seek(ms: number, play = false): void {
    this.setFollowing(true);
    const media = this.media;
    if (media && this.ready) this.seekMedia(media, ms, play);
    else this.waiting = { ms, play };
    this.moveTo(ms);
  }

  /** Keeps where the recording was (and whether it played) for the next source, e.g. a renewed link. */
  carryOver(): void {
    this.waiting = { ms: this.positionNow, play: !this.paused };
  }

  toggle(): void {
    const media = this.media;
    if (!media) return;
    // While the length is being found, a press of Play is kept for when the recording is back at its place.
    if (this.probing) this.waiting = { ms: this.waiting?.ms ?? this.positionNow, play: !this.waiting?.play };
    else if (media.paused) void media.play().catch(() => undefined);
    else media.pause();
  }

  skip(deltaMs: number): void {
    const end = this.durationMs || Number.POSITIVE_INFINITY;
    const target = Math.min(end, Math.max(0, this.positionNow + deltaMs));
    const media = this.media;
    if (media && this.ready) {
      media.currentTime = target / 1000;
      this.moveTo(target);
    }
  }

  setRate(rate: number): void {
    if (this.media) this.media.playbackRate = rate;
  }

  setFollowing(following: boolean): void {
    if (following === this.followingNow) return;
    this.followingNow = following;
    this.notify();
  }

  /** The transcript's segments by time, so the playing one is found (by binary search) as time moves. */
  setTimeline(spans: readonly Span[]): void {
    this.spans = spans;
    this.movePlaying(this.indexAt(this.positionNow));
    this.notify();
  }

  /** Told of every change: position, play/pause, speed, following. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Told only when segment `index` starts or stops playing. */
  subscribeSegment(index: number, listener: Listener): () => void {
    let set = this.segmentListeners.get(index);
    if (!set) {
      set = new Set();
      this.segmentListeners.set(index, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.segmentListeners.delete(index);
    };
  }

  private seekMedia(media: HTMLMediaElement, ms: number, play: boolean): void {
    media.currentTime = ms / 1000;
    // A browser may refuse to start without a gesture; the position is set either way.
    if (play) void media.play().catch(() => undefined);
  }

  private moveTo(ms: number): void {
    if (ms === this.positionNow) return;
    this.positionNow = ms;
    this.movePlaying(this.indexAt(ms));
    this.notify();
  }

  private movePlaying(index: number): void {
    const before = this.playingNow;
    if (index === before) return;
    this.playingNow = index;
    for (const listener of this.segmentListeners.get(before) ?? []) listener();
    for (const listener of this.segmentListeners.get(index) ?? []) listener();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * The segment being heard at `ms`: the last one started by then. In a silence between two
   * segments (a pause, a gap the recogniser left) the one just said stays marked until the next
   * starts, so the transcript never loses its place; before the first, none.
   */
  private indexAt(ms: number): number {
    let low = 0;
    let high = this.spans.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((this.spans[middle] as Span).start_ms <= ms) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }
}
