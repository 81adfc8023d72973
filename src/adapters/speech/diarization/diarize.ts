/**
 * Speaker diarization of a recording, in plain TypeScript: energy voice activity, MFCC + pitch
 * statistics per 1.5 s window, agglomerative clustering that over-splits on purpose, placement on 1 s
 * windows every 250 ms, then a BIC decision on which clusters are one speaker (bic.ts), smoothing.
 * Streams: memory is per-block statistics (about 1 KB per second of audio) plus fixed buffers.
 *
 * Overlap: not detected. Every moment goes to one speaker; with MFCC means of a window there is no
 * evidence of two voices at once (a mixture looks like a third, odd voice, and the fixtures have no
 * overlapping speech to measure a detector on), so `has_overlap` stays false for this engine rather
 * than being guessed.
 */
import type { VoiceEmbedder } from '../voices/voice-embedder.ts';
import { BIC_PENALTY_WEIGHT, mergeByBic } from './bic.ts';
import { centroids, cluster, distance, nearestCentroid } from './cluster.ts';
import { ANALYSIS_SAMPLES, FRAME_MS, FrameAnalyser, HOP_SAMPLES, MFCC_COUNT } from './features.ts';
import { SampleHistory } from './sample-history.ts';
import { DEFAULT_SMOOTH_OPTIONS, type LabelledRun, smoothTurns } from './smooth.ts';
import type { SpeakerLabel, SpeakerTurn } from './types.ts';
import { AdaptiveEnergyThreshold, LOOKAHEAD_FRAMES, speechRegions } from './vad.ts';
import {
  BLOCK_FRAMES,
  BlockStats,
  DEFAULT_WINDOW_OPTIONS,
  type Window,
  type WindowOptions,
  windowEmbeddings,
} from './windows.ts';

/** 1 s windows every 250 ms for placing speaker changes; at least 0.3 s of speech each. */
export const LABELLING_WINDOWS: WindowOptions = {
  ...DEFAULT_WINDOW_OPTIONS,
  windowBlocks: 4,
  hopBlocks: 1,
  minSpeechFrames: 30,
};

/**
 * The windows are first clustered up to this average-linkage distance, in units of the recording's own
 * spread between neighbouring stretches of speech (`adjacentSpread`): where a voice may be split but
 * two voices are rarely joined; BIC then decides which clusters are one speaker (bic.ts). A fixed
 * distance (0.62 before) split letters read one by one, whose neighbouring windows differ more than
 * those of running speech, into up to eight speakers. Chosen by leave-one-source-out
 * (bench/diarization-loso.ts): 1.3-1.4 in every fold, with the BIC weight 4-8.
 */
export const OVERCLUSTER_SPREADS = 1.4;

/** Each 250 ms block's speaker, and the windows whose voices decided it (each turn's voice comes from them). */
interface BlockLabels {
  blockLabels: number[];
  windows: readonly Window[];
}

export interface DiarizerTuning {
  /** Over-clustering stops at this many times the recording's adjacent-window spread. */
  overclusterSpreads: number;
  bicPenaltyWeight: number;
}

export const DEFAULT_TUNING: DiarizerTuning = {
  overclusterSpreads: OVERCLUSTER_SPREADS,
  bicPenaltyWeight: BIC_PENALTY_WEIGHT,
};

/** Voice embeddings are taken of 1.5 s windows every 0.75 s, from their speech frames only. */
const VOICE_WINDOW_BLOCKS = 6;
const VOICE_HOP_BLOCKS = 3;
/** A window with less than 0.8 s of speech says too little about the voice: left to its neighbours. */
const VOICE_MIN_SPEECH_FRAMES = 80;
/**
 * Two stretches whose embeddings' cosine similarity averages under 0.5 are taken for two voices.
 * Chosen before measuring, not calibrated: no real voice model can be fetched on the machines this
 * project is built on (docs/transcripts.md, "Neural voice embeddings").
 */
export const VOICE_COSINE_DISTANCE = 0.5;
/** Samples fed to the diarizer at a time, so the history always holds what the decisions lag behind. */
const SLICE_SAMPLES = 16_384;

/**
 * The diarizer on 16 kHz mono s16le PCM: `push` it as it comes, then `finish` once. CPU-bound: the
 * service runs it in a worker thread (`diarizeFile`, diarize-file.ts), never on the event loop.
 */
export class Diarizer {
  private readonly analyser = new FrameAnalyser();
  private readonly threshold = new AdaptiveEnergyThreshold();
  private readonly stats = new BlockStats();
  /** Frames waiting for their voice-activity decision: energy, c0..c12, f0. */
  private readonly pending = new Float64Array((LOOKAHEAD_FRAMES + 1) * (MFCC_COUNT + 2));
  private framesAnalysed = 0;
  private framesDecided = 0;
  private flags = new Uint8Array(4096);
  /** Samples not yet consumed by a frame; starts with the left context of frame 0. */
  private samples = new Float32Array(ANALYSIS_SAMPLES * 8);
  private sampleCount = (ANALYSIS_SAMPLES - 400) / 2;
  private totalSamples = 0;
  private oddByte: number | undefined;
  private completed = false;
  /** With a voice model: recent audio, and the embedding of each window of speech so far. */
  private readonly history: SampleHistory | undefined;
  private readonly voiceWindows: Window[] = [];

  constructor(
    private readonly tuning: DiarizerTuning = DEFAULT_TUNING,
    private readonly embedder?: VoiceEmbedder,
  ) {
    if (embedder) {
      const lagFrames = LOOKAHEAD_FRAMES + 2 * VOICE_WINDOW_BLOCKS * BLOCK_FRAMES;
      this.history = new SampleHistory(lagFrames * HOP_SAMPLES + ANALYSIS_SAMPLES + 2 * SLICE_SAMPLES);
    }
  }

  push(chunk: Buffer): void {
    let bytes = chunk;
    if (this.oddByte !== undefined) {
      bytes = Buffer.concat([Buffer.from([this.oddByte]), chunk]);
      this.oddByte = undefined;
    }
    const count = bytes.length >> 1;
    if (bytes.length & 1) this.oddByte = bytes[bytes.length - 1];
    for (let from = 0; from < count; from += SLICE_SAMPLES) {
      const slice = Math.min(SLICE_SAMPLES, count - from);
      this.reserve(slice);
      for (let i = 0; i < slice; i++) {
        const sample = bytes.readInt16LE((from + i) * 2) / 32768;
        this.samples[this.sampleCount + i] = sample;
        this.history?.push(sample);
      }
      this.sampleCount += slice;
      this.totalSamples += slice;
      this.analyseAvailable();
    }
  }

  finish(speakersExpected?: number): SpeakerTurn[] {
    this.complete();
    return this.decide(speakersExpected, this.tuning);
  }

  /** Analyses what is left of the audio; afterwards `decide` may be called any number of times. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const frames = Math.floor(this.totalSamples / HOP_SAMPLES);
    // Zero padding lets the last frames be analysed. Zeroed here: past `sampleCount` the buffer holds
    // whatever earlier pushes left there, which depended on how the stream was cut into chunks.
    this.reserve(ANALYSIS_SAMPLES);
    this.samples.fill(0, this.sampleCount, this.sampleCount + ANALYSIS_SAMPLES);
    this.sampleCount += ANALYSIS_SAMPLES;
    this.analyseAvailable(frames);
    while (this.framesDecided < this.framesAnalysed) this.decideOldest();
  }

  /**
   * The speaker turns of the analysed audio under `tuning` (after `complete`). Pure: the bench calls
   * it with many tunings on one analysis.
   */
  decide(speakersExpected: number | undefined, tuning: DiarizerTuning): SpeakerTurn[] {
    const labelled =
      this.embedder !== undefined && this.voiceWindows.length > 0
        ? this.blockLabelsByVoice(speakersExpected)
        : this.blockLabelsByFeatures(speakersExpected, tuning);
    if (!labelled) return [];
    const { blockLabels, windows } = labelled;
    const runs: LabelledRun[] = [];
    for (const region of speechRegions(this.flags, this.framesDecided)) {
      for (let frame = region.start; frame < region.end; frame++) {
        const label = blockLabels[Math.floor(frame / BLOCK_FRAMES)] ?? 0;
        const last = runs.at(-1);
        const start_ms = Math.round(frame * FRAME_MS);
        const end_ms = Math.round((frame + 1) * FRAME_MS);
        if (last && last.label === label && last.end_ms === start_ms) last.end_ms = end_ms;
        else runs.push({ start_ms, end_ms, label });
      }
    }
    let turns = smoothTurns(runs);
    const distinct = (list: LabelledRun[]) => new Set(list.map((run) => run.label)).size;
    // A hinted speaker heard only in turns shorter than the smoothing's minimum keeps them.
    if (speakersExpected !== undefined && distinct(turns) < Math.min(speakersExpected, distinct(runs)))
      turns = smoothTurns(runs, { ...DEFAULT_SMOOTH_OPTIONS, minTurnMs: 0 });
    return nameSpeakers(turns).map((turn) => withVoice(turn, windows));
  }

  /**
   * Speakers told apart by a neural voice model: windows clustered by their embeddings' cosine
   * distance (average linkage), or into exactly the hinted number; each block takes its windows' vote.
   */
  private blockLabelsByVoice(speakersExpected: number | undefined): BlockLabels {
    const windows = this.voiceWindows;
    const vectors = windows.map((w) => w.vector);
    const weights = windows.map((w) => w.speechFrames);
    const dimensions = vectors[0]?.length ?? 1;
    // cluster.ts measures RMS differences; between unit vectors that is sqrt(2 (1 - cos) / dims).
    const labels =
      speakersExpected !== undefined
        ? cluster(vectors, { clusters: Math.min(speakersExpected, windows.length) }, weights)
        : cluster(vectors, { threshold: Math.sqrt((2 * VOICE_COSINE_DISTANCE) / dimensions) }, weights);
    return { blockLabels: labelBlocks(this.stats.count, windows, labels), windows };
  }

  /** Speakers told apart by MFCC and pitch statistics (no voice model): see the file's comment. */
  private blockLabelsByFeatures(
    speakersExpected: number | undefined,
    tuning: DiarizerTuning,
  ): BlockLabels | undefined {
    // Who speaks is decided on long windows (stable statistics), where on short ones (a short turn
    // or a change point is not averaged away): each short window takes the nearest speaker centroid.
    const coarse = windowEmbeddings(this.stats);
    if (coarse.windows.length === 0) return undefined;
    const vectors = coarse.windows.map((w) => w.vector);
    const fine = windowEmbeddings(this.stats, LABELLING_WINDOWS, coarse.scale).windows;
    /** Block labels from the centroids of the coarse windows labelled `coarseLabels` (-1: left out). */
    const place = (coarseLabels: number[]) => {
      if (fine.length === 0) return labelBlocks(this.stats.count, coarse.windows, coarseLabels);
      const counted = coarseLabels.flatMap((label, i) => (label >= 0 ? [i] : []));
      const centres = centroids(
        counted.map((i) => vectors[i] as Float64Array),
        counted.map((i) => coarseLabels[i] as number),
      );
      return labelBlocks(
        this.stats.count,
        fine,
        nearestCentroid(
          fine.map((w) => w.vector),
          centres,
        ),
      );
    };
    const weights = coarse.windows.map((w) => w.speechFrames);
    // Over-cluster on purpose, then let BIC decide which clusters are one speaker; with a hint, BIC's
    // closest pairs keep merging down to exactly the hinted count.
    const threshold = tuning.overclusterSpreads * adjacentSpread(fine);
    let labels = cluster(vectors, { threshold }, weights);
    if (speakersExpected !== undefined && new Set(labels).size < speakersExpected)
      labels = cluster(vectors, { clusters: speakersExpected }, weights);
    let blockLabels = place(labels);
    if (speakersExpected !== undefined && new Set(blockLabels).size < new Set(labels).size)
      blockLabels = labelBlocks(this.stats.count, coarse.windows, labels); // no cluster lost in placement
    // Clusters BIC finds to be one speaker are merged, and the changes placed again against the
    // merged centroids, so a window at a change point has no in-between cluster to go to.
    const mapping = mergeByBic(blockLabels, this.stats, tuning.bicPenaltyWeight, speakersExpected);
    labels = labels.map((label) => mapping.get(label) ?? -1);
    blockLabels = place(labels);
    if (speakersExpected !== undefined && new Set(blockLabels).size < new Set(labels).size)
      blockLabels = labelBlocks(this.stats.count, coarse.windows, labels);
    return { blockLabels, windows: coarse.windows };
  }

  private reserve(extra: number): void {
    if (this.sampleCount + extra <= this.samples.length) return;
    const grown = new Float32Array(Math.max(this.samples.length * 2, this.sampleCount + extra));
    grown.set(this.samples.subarray(0, this.sampleCount));
    this.samples = grown;
  }

  private analyseAvailable(limit = Number.POSITIVE_INFINITY): void {
    let offset = 0;
    while (offset + ANALYSIS_SAMPLES <= this.sampleCount && this.framesAnalysed < limit) {
      const features = this.analyser.analyse(this.samples.subarray(offset, offset + ANALYSIS_SAMPLES));
      this.threshold.push(features.energyDb);
      const stride = MFCC_COUNT + 2;
      const base = (this.framesAnalysed % (LOOKAHEAD_FRAMES + 1)) * stride;
      this.pending[base] = features.energyDb;
      this.pending.set(features.mfcc, base + 1);
      this.pending[base + 1 + MFCC_COUNT] = features.f0;
      this.framesAnalysed++;
      if (this.framesAnalysed - this.framesDecided > LOOKAHEAD_FRAMES) this.decideOldest();
      offset += HOP_SAMPLES;
    }
    this.samples.copyWithin(0, offset, this.sampleCount);
    this.sampleCount -= offset;
  }

  /** Decides the oldest pending frame against a threshold that has seen 10 s past it. */
  private decideOldest(): void {
    const frame = this.framesDecided;
    const stride = MFCC_COUNT + 2;
    const base = (frame % (LOOKAHEAD_FRAMES + 1)) * stride;
    if (frame >= this.flags.length) {
      const grown = new Uint8Array(this.flags.length * 2);
      grown.set(this.flags);
      this.flags = grown;
    }
    const block = Math.floor(frame / BLOCK_FRAMES);
    this.stats.ensure(block);
    if ((this.pending[base] ?? -100) > this.threshold.threshold()) {
      this.flags[frame] = 1;
      this.stats.add(
        block,
        this.pending.subarray(base + 1, base + 1 + MFCC_COUNT),
        this.pending[base + 1 + MFCC_COUNT] ?? 0,
      );
    }
    this.framesDecided++;
    if (this.embedder && this.framesDecided % (VOICE_HOP_BLOCKS * BLOCK_FRAMES) === 0)
      this.embedWindowEndingAt(this.framesDecided / BLOCK_FRAMES);
  }

  /** The voice embedding of the window of blocks ending at `endBlock`, from its speech frames only. */
  private embedWindowEndingAt(endBlock: number): void {
    const startBlock = endBlock - VOICE_WINDOW_BLOCKS;
    if (startBlock < 0 || !this.embedder || !this.history) return;
    const parts: Float32Array[] = [];
    let speechFrames = 0;
    const end = endBlock * BLOCK_FRAMES;
    for (let frame = startBlock * BLOCK_FRAMES; frame < end; frame++) {
      if (!this.flags[frame]) continue;
      let last = frame;
      while (last + 1 < end && this.flags[last + 1]) last++;
      const samples = this.history.read(frame * HOP_SAMPLES, (last + 1) * HOP_SAMPLES);
      if (samples) parts.push(samples);
      speechFrames += last + 1 - frame;
      frame = last;
    }
    if (speechFrames < VOICE_MIN_SPEECH_FRAMES) return;
    const speech = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      speech.set(part, at);
      at += part.length;
    }
    const embedding = this.embedder.embed(speech);
    if (!embedding) return;
    const norm = Math.hypot(...embedding) || 1;
    const vector = Float64Array.from(embedding, (value) => value / norm);
    this.voiceWindows.push({ startBlock, endBlock, speechFrames, vector });
  }
}

/**
 * Label of each 250 ms block: vote of the windows covering it, each weighted by how close its centre
 * is (a window straddling a speaker change should not outvote one centred on the block). Blocks no
 * window covers take the nearest labelled block's label.
 */
function labelBlocks(
  blocks: number,
  windows: { startBlock: number; endBlock: number }[],
  labels: number[],
): number[] {
  const k = Math.max(...labels) + 1;
  const votes = Array.from({ length: blocks }, () => new Float64Array(k));
  windows.forEach((w, i) => {
    const label = labels[i] ?? 0;
    const centre = (w.startBlock + w.endBlock - 1) / 2;
    for (let b = w.startBlock; b < w.endBlock; b++) {
      const v = votes[b];
      if (v) v[label] = (v[label] ?? 0) + 1 / (1 + Math.abs(b - centre));
    }
  });
  const out = votes.map((v) => {
    let best = -1;
    let bestVote = 0;
    v.forEach((vote, label) => {
      if (vote > bestVote) {
        bestVote = vote;
        best = label;
      }
    });
    return best;
  });
  const forward: number[] = [];
  let last = -1;
  for (const label of out) {
    if (label >= 0) last = label;
    forward.push(last);
  }
  last = -1;
  for (let b = blocks - 1; b >= 0; b--) {
    if ((out[b] ?? -1) >= 0) last = out[b] ?? -1;
    else out[b] = last >= 0 ? last : (forward[b] ?? 0);
  }
  return out.map((label) => Math.max(0, label));
}

/**
 * The lower quartile of the distances between each 1 s window and the next one that does not overlap
 * it: how far apart two stretches of one voice usually are in this recording, which depends on what
 * is said (running speech against isolated words), the channel and the codec. Neighbours are mostly
 * one speaker; the quartile keeps the speaker changes among them out, even with turns of 1-2 s.
 */
export function adjacentSpread(windows: readonly Window[]): number {
  const byStart = new Map(windows.map((w) => [w.startBlock, w]));
  const distances: number[] = [];
  for (const w of windows) {
    const next = byStart.get(w.endBlock);
    if (next) distances.push(distance(w.vector, next.vector));
  }
  if (distances.length === 0) return 0.4;
  distances.sort((a, b) => a - b);
  return distances[Math.floor(distances.length / 4)] ?? 0.4;
}

/**
 * The turn with the mean of the voice vectors of the windows centred in it (weighted by their speech,
 * unit length, 4 decimals): what findSimilarSegments compares segments by, after the fact. A turn too
 * short for a window of its own takes the nearest window's.
 */
function withVoice(turn: SpeakerTurn, windows: readonly Window[]): SpeakerTurn {
  const centreMs = (w: Window) => ((w.startBlock + w.endBlock) / 2) * BLOCK_FRAMES * FRAME_MS;
  let inside = windows.filter((w) => centreMs(w) >= turn.start_ms && centreMs(w) < turn.end_ms);
  if (inside.length === 0) {
    const middle = (turn.start_ms + turn.end_ms) / 2;
    const nearest = windows.reduce<Window | undefined>(
      (best, w) => (!best || Math.abs(centreMs(w) - middle) < Math.abs(centreMs(best) - middle) ? w : best),
      undefined,
    );
    inside = nearest ? [nearest] : [];
  }
  const first = inside[0];
  if (!first) return turn;
  const sum = new Float64Array(first.vector.length);
  for (const w of inside)
    for (let d = 0; d < sum.length; d++) sum[d] = (sum[d] ?? 0) + (w.vector[d] ?? 0) * w.speechFrames;
  const norm = Math.hypot(...sum) || 1;
  return { ...turn, voice: Array.from(sum, (value) => Math.round((value / norm) * 1e4) / 1e4) };
}

function nameSpeakers(turns: LabelledRun[]): SpeakerTurn[] {
  const names = new Map<number, SpeakerLabel>();
  return turns.map((turn) => {
    let speaker = names.get(turn.label);
    if (!speaker) {
      speaker = `Speaker ${names.size + 1}`;
      names.set(turn.label, speaker);
    }
    return { start_ms: turn.start_ms, end_ms: turn.end_ms, speaker };
  });
}
