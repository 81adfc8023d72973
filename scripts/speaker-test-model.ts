/**
 * Writes a tiny speaker-embedding model with random weights, as an ONNX file that sherpa-onnx's
 * `SpeakerEmbeddingExtractor` takes for a WeSpeaker model: 80-dim fbank features [B, T, 80] in, an
 * embedding [B, 256] out, with the metadata keys sherpa-onnx reads. The embedding is the recording's
 * long-term spectrum (the mean feature over time) with its overall level taken away (so only its shape
 * is left), times a random matrix: voices whose spectra differ (a woman and a man, or two microphones)
 * get vectors far apart, two stretches of one voice close ones. That is a crude voice print, nothing
 * like a trained model; it exists so that tests run the real binding end to end (model load, audio at
 * the right rate, an embedding back, voices compared across recordings) without model weights from
 * the network.
 *
 *   npx tsx scripts/speaker-test-model.ts <path>
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from './seeded-random.ts';

/** Kaldi fbank bins: sherpa-onnx computes 80 whatever the model says. */
const FEATURE_DIM = 80;
/** The embedding's length, as WeSpeaker's ResNet34 models give. */
export const SPEAKER_TEST_MODEL_DIM = 256;

/**
 * sherpa-onnx ends the process (it does not throw) when `output_dim`, `sample_rate`, `normalize_samples`
 * or `language` is missing or empty, and crashes without `framework`. `output_dim` must equal the
 * output's width: the Node binding copies that many floats out of the embedding. `url` and `comment` are
 * informational, as sherpa-onnx's scripts/wespeaker/add_meta_data.py writes them.
 */
const METADATA: Record<string, string> = {
  framework: 'wespeaker',
  language: 'English',
  url: 'none: written by scripts/speaker-test-model.ts',
  comment: 'the long-term spectral shape, randomly projected: real plumbing, a crude voice print',
  sample_rate: '16000',
  output_dim: String(SPEAKER_TEST_MODEL_DIM),
  normalize_samples: '0', // WeSpeaker's features are of samples in the int16 range
};

/** ONNX enum values (onnx/onnx.proto). */
const FLOAT = 1; // TensorProto.DataType
const ATTRIBUTE_INT = 2; // AttributeProto.AttributeType
const ATTRIBUTE_INTS = 7;
/** IR version 7 is the one that introduced opset 13, where ReduceMean still takes `axes` as an attribute. */
const IR_VERSION = 7;
const OPSET = 13;

// Protocol buffers, just enough of them: no ONNX library is needed for a two-node graph.

function varint(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varint: ${value}`);
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A varint field (wire type 0). */
function int(field: number, value: number): Buffer {
  return Buffer.concat([varint(field << 3), varint(value)]);
}

/** A length-delimited field (wire type 2): a string, bytes or an embedded message. */
function bytes(field: number, value: string | Buffer): Buffer {
  const payload = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

/** onnx.proto is proto2: repeated scalars are written unpacked, one field per value. */
function ints(field: number, values: readonly number[]): Buffer {
  return Buffer.concat(values.map((value) => int(field, value)));
}

const message = (...fields: Buffer[]) => Buffer.concat(fields);

// The ONNX messages, with their field numbers from onnx/onnx.proto.

function entry(key: string, value: string): Buffer {
  return message(bytes(1, key), bytes(2, value)); // StringStringEntryProto
}

/** A float tensor's ValueInfoProto; a string dimension is symbolic (dim_param), so B and T may vary. */
function valueInfo(name: string, shape: (number | string)[]): Buffer {
  const dims = shape.map((dim) => bytes(1, typeof dim === 'number' ? int(1, dim) : bytes(2, dim)));
  const tensorType = message(int(1, FLOAT), bytes(2, message(...dims))); // TypeProto.Tensor
  return message(bytes(1, name), bytes(2, bytes(1, tensorType))); // ValueInfoProto { TypeProto { tensor_type } }
}

function node(opType: string, inputs: string[], output: string, attributes: Buffer[] = []): Buffer {
  return message(
    ...inputs.map((input) => bytes(1, input)),
    bytes(2, output),
    bytes(3, output),
    bytes(4, opType),
    ...attributes.map((attribute) => bytes(5, attribute)),
  );
}

/** The ONNX file's bytes: the same for the same seed. */
export function speakerTestModelBytes(seed = 1): Buffer {
  const next = seededRandom(seed);
  const weights = new Float32Array(FEATURE_DIM * SPEAKER_TEST_MODEL_DIM);
  // Log-mel features are in the tens; small weights keep the embedding's values moderate.
  for (let i = 0; i < weights.length; i++) weights[i] = (next() - 0.5) * 0.2;
  const initializer = message(
    ints(1, [FEATURE_DIM, SPEAKER_TEST_MODEL_DIM]),
    int(2, FLOAT),
    bytes(8, 'weights'),
    bytes(9, Buffer.from(weights.buffer)), // raw_data: ONNX wants little-endian, as every host here is
  );
  const overTime = message(bytes(1, 'axes'), ints(8, [1]), int(20, ATTRIBUTE_INTS));
  const overBins = message(bytes(1, 'axes'), ints(8, [1]), int(20, ATTRIBUTE_INTS));
  const dropAxis = message(bytes(1, 'keepdims'), int(3, 0), int(20, ATTRIBUTE_INT));
  const keepAxis = message(bytes(1, 'keepdims'), int(3, 1), int(20, ATTRIBUTE_INT));
  const graph = message(
    // [B, T, 80] -> [B, 80]: the long-term spectrum; minus its mean over the bins [B, 1]: its shape.
    bytes(1, node('ReduceMean', ['feats'], 'spectrum', [overTime, dropAxis])),
    bytes(1, node('ReduceMean', ['spectrum'], 'level', [overBins, keepAxis])),
    bytes(1, node('Sub', ['spectrum', 'level'], 'shape')),
    bytes(1, node('MatMul', ['shape', 'weights'], 'embs')),
    bytes(2, 'speaker_test_model'),
    bytes(5, initializer),
    // The names and symbolic dimensions WeSpeaker's exported models have.
    bytes(11, valueInfo('feats', ['B', 'T', FEATURE_DIM])),
    bytes(12, valueInfo('embs', ['B', SPEAKER_TEST_MODEL_DIM])),
  );
  return message(
    int(1, IR_VERSION),
    bytes(2, 'notes-service scripts/speaker-test-model.ts'),
    bytes(7, graph),
    bytes(8, int(2, OPSET)), // OperatorSetIdProto with the default domain
    ...Object.entries(METADATA).map(([key, value]) => bytes(14, entry(key, value))),
  );
}

/** Writes the model to `path` (through a temporary name, so a reader never sees half a file). */
export async function writeSpeakerTestModel(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, speakerTestModelBytes());
  await rename(partial, path);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write('usage: tsx scripts/speaker-test-model.ts <path>\n');
    process.exit(2);
  }
  await writeSpeakerTestModel(path);
  process.stderr.write(`wrote ${path}\n`);
}
