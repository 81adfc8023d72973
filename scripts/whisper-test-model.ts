/**
 * Writes a small whisper.cpp model with random weights, in the ggml file layout whisper.cpp's own
 * `convert-pt-to-ggml.py` writes (magic, hyper-parameters, mel filters, vocabulary, tensors). Its words
 * are nonsense; it exists so that tests run the real binding end to end (model load, audio at the right
 * rate and length, segments and times back) without model weights from the network.
 *
 *   npx tsx scripts/whisper-test-model.ts <path>
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from './seeded-random.ts';

/** Shape of the test model: whisper's vocabulary and audio window, with tiny layers. */
const HPARAMS = {
  nVocab: 51864, // English-only whisper: the special tokens sit where whisper.cpp expects them
  nAudioCtx: 1500, // 30 s windows, as every whisper
  nAudioState: 64,
  nAudioHead: 2,
  nAudioLayer: 1,
  nTextCtx: 448,
  nTextState: 64,
  nTextHead: 2,
  nTextLayer: 1,
  nMels: 80,
} as const;
/** Text tokens before `<|endoftext|>` (50256); whisper.cpp names the special ones itself. */
const TEXT_TOKENS = 50256;
const N_FFT_BINS = 201; // 400-point FFT at 16 kHz
const GGML_MAGIC = 0x67676d6c;
const F32 = 0;
const F16 = 1;
/** whisper.cpp keeps these in 32-bit floats whatever the model's type (convert-pt-to-ggml.py does too). */
const ALWAYS_F32 = new Set([
  'encoder.conv1.bias',
  'encoder.conv2.bias',
  'encoder.positional_embedding',
  'decoder.positional_embedding',
]);

function int32s(...values: number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => {
    buffer.writeInt32LE(value, index * 4);
  });
  return buffer;
}

/** Triangular mel filters (HTK mel scale) over the FFT bins, as whisper's filter bank is shaped. */
function melFilters(): Float32Array {
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);
  const maxMel = toMel(8000);
  const edges = Array.from({ length: HPARAMS.nMels + 2 }, (_, i) => toHz((maxMel * i) / (HPARAMS.nMels + 1)));
  const filters = new Float32Array(HPARAMS.nMels * N_FFT_BINS);
  for (let m = 0; m < HPARAMS.nMels; m++) {
    const [low = 0, centre = 0, high = 0] = edges.slice(m, m + 3);
    for (let bin = 0; bin < N_FFT_BINS; bin++) {
      const hz = (bin * 8000) / (N_FFT_BINS - 1);
      const rising = (hz - low) / (centre - low);
      const falling = (high - hz) / (high - centre);
      filters[m * N_FFT_BINS + bin] = Math.max(0, Math.min(rising, falling));
    }
  }
  return filters;
}

/**
 * Printable ASCII as single-byte tokens (whisper.cpp looks up " " to suppress blanks), then nonsense
 * syllables, about half starting with a space as a byte-pair vocabulary's word starts do.
 */
function vocabulary(next: () => number): Buffer[] {
  const consonants = 'bdfgklmnprstvz';
  const vowels = 'aeiou';
  const pick = (letters: string) => letters[Math.floor(next() * letters.length)] ?? 'a';
  return Array.from({ length: TEXT_TOKENS }, (_, id) => {
    if (id >= 32 && id <= 126) return Buffer.from([id]);
    const syllables = 1 + (id % 3);
    let token = id % 2 === 0 ? ' ' : '';
    for (let s = 0; s < syllables; s++) token += pick(consonants) + pick(vowels);
    return Buffer.from(token, 'latin1');
  });
}

interface TensorSpec {
  name: string;
  /** ggml order: the fastest-varying dimension first. */
  shape: number[];
  /** Layer norms start at 1 so activations keep their scale; everything else is small noise. */
  fill?: 'ones' | 'zeros';
}

function tensors(): TensorSpec[] {
  const {
    nAudioCtx,
    nAudioState: a,
    nAudioLayer,
    nTextCtx,
    nTextState: t,
    nTextLayer,
    nMels,
    nVocab,
  } = HPARAMS;
  const block = (prefix: string, width: number, attention: string[]): TensorSpec[] => [
    { name: `${prefix}.mlp_ln.weight`, shape: [width], fill: 'ones' },
    { name: `${prefix}.mlp_ln.bias`, shape: [width], fill: 'zeros' },
    { name: `${prefix}.mlp.0.weight`, shape: [width, 4 * width] },
    { name: `${prefix}.mlp.0.bias`, shape: [4 * width] },
    { name: `${prefix}.mlp.2.weight`, shape: [4 * width, width] },
    { name: `${prefix}.mlp.2.bias`, shape: [width] },
    ...attention.flatMap((kind): TensorSpec[] => [
      { name: `${prefix}.${kind}_ln.weight`, shape: [width], fill: 'ones' },
      { name: `${prefix}.${kind}_ln.bias`, shape: [width], fill: 'zeros' },
      { name: `${prefix}.${kind}.query.weight`, shape: [width, width] },
      { name: `${prefix}.${kind}.query.bias`, shape: [width] },
      { name: `${prefix}.${kind}.key.weight`, shape: [width, width] },
      { name: `${prefix}.${kind}.value.weight`, shape: [width, width] },
      { name: `${prefix}.${kind}.value.bias`, shape: [width] },
      { name: `${prefix}.${kind}.out.weight`, shape: [width, width] },
      { name: `${prefix}.${kind}.out.bias`, shape: [width] },
    ]),
  ];
  return [
    { name: 'encoder.positional_embedding', shape: [a, nAudioCtx] },
    { name: 'encoder.conv1.weight', shape: [3, nMels, a] },
    { name: 'encoder.conv1.bias', shape: [1, a] },
    { name: 'encoder.conv2.weight', shape: [3, a, a] },
    { name: 'encoder.conv2.bias', shape: [1, a] },
    ...Array.from({ length: nAudioLayer }, (_, i) => block(`encoder.blocks.${i}`, a, ['attn'])).flat(),
    { name: 'encoder.ln_post.weight', shape: [a], fill: 'ones' },
    { name: 'encoder.ln_post.bias', shape: [a], fill: 'zeros' },
    { name: 'decoder.positional_embedding', shape: [t, nTextCtx] },
    { name: 'decoder.token_embedding.weight', shape: [t, nVocab] },
    ...Array.from({ length: nTextLayer }, (_, i) =>
      block(`decoder.blocks.${i}`, t, ['attn', 'cross_attn']),
    ).flat(),
    { name: 'decoder.ln.weight', shape: [t], fill: 'ones' },
    { name: 'decoder.ln.bias', shape: [t], fill: 'zeros' },
  ];
}

/** Matrices and convolution kernels are half floats in an f16 model (ggml's convolutions want them so). */
function storedType(spec: TensorSpec): number {
  return spec.shape.length >= 2 && !ALWAYS_F32.has(spec.name) ? F16 : F32;
}

function tensorData(spec: TensorSpec, type: number, next: () => number): Buffer {
  const count = spec.shape.reduce((product, n) => product * n, 1);
  const values = new Float32Array(count);
  if (spec.fill === 'ones') values.fill(1);
  else if (spec.fill !== 'zeros') for (let i = 0; i < count; i++) values[i] = (next() - 0.5) * 0.2;
  if (type === F32) return Buffer.from(values.buffer);
  const half = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) half.writeUInt16LE(toHalf(values[i] ?? 0), i * 2);
  return half;
}

/** IEEE 754 half precision of a small float (the weights here are far from its range limits). */
function toHalf(value: number): number {
  if (value === 0) return 0;
  const sign = value < 0 ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  const exponent = Math.floor(Math.log2(magnitude));
  if (exponent < -14) return sign | Math.round(magnitude / 2 ** -24); // subnormal
  const mantissa = Math.round((magnitude / 2 ** exponent - 1) * 1024);
  return mantissa === 1024 ? sign | ((exponent + 16) << 10) : sign | ((exponent + 15) << 10) | mantissa;
}

/** Writes the model to `path` (through a temporary name, so a reader never sees half a file). */
export async function writeWhisperTestModel(path: string, seed = 1): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  const write = async (chunk: Buffer) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const next = seededRandom(seed);
  const h = HPARAMS;
  await write(int32s(GGML_MAGIC));
  await write(
    int32s(
      h.nVocab,
      h.nAudioCtx,
      h.nAudioState,
      h.nAudioHead,
      h.nAudioLayer,
      h.nTextCtx,
      h.nTextState,
      h.nTextHead,
      h.nTextLayer,
      h.nMels,
      F16,
    ),
  );
  await write(int32s(h.nMels, N_FFT_BINS));
  await write(Buffer.from(melFilters().buffer));
  const tokens = vocabulary(next);
  await write(int32s(tokens.length));
  for (const token of tokens) await write(Buffer.concat([int32s(token.length), token]));
  for (const spec of tensors()) {
    const name = Buffer.from(spec.name, 'utf8');
    const type = storedType(spec);
    await write(Buffer.concat([int32s(spec.shape.length, name.length, type, ...spec.shape), name]));
    await write(tensorData(spec, type, next));
  }
  out.end();
  await once(out, 'finish');
  await rename(partial, path);
  return path;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write('usage: tsx scripts/whisper-test-model.ts <path>\n');
    process.exit(2);
  }
  await writeWhisperTestModel(path);
  process.stderr.write(`wrote ${path}\n`);
}
