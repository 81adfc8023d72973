import { join, resolve } from 'node:path';
import type { FetchableModel } from '../../models/model-fetch.ts';

/**
 * The whisper.cpp models the service knows by name: files `ggml-<name>.bin` as whisper.cpp publishes
 * them (its models/README.md; hosted at huggingface.co/ggerganov/whisper.cpp), each pinned by its
 * SHA-256 so that a download is used only when it is exactly the published file. The sizes are
 * whisper.cpp's (disk, MiB), used to check free space before a download whose server states none.
 */
export interface KnownWhisperModel extends FetchableModel {
  /** Multilingual models detect the language; `.en` models hear English only. */
  multilingual: boolean;
}

const MiB = 1024 * 1024;

/** Where whisper.cpp's models are published; `NOTES_WHISPER_MODEL_URL` names a mirror instead. */
export const DEFAULT_MODEL_BASE_URL = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main';

function model(name: string, sha256: string, mib: number): KnownWhisperModel {
  return {
    name,
    file: `ggml-${name}.bin`,
    sha256,
    approxBytes: mib * MiB,
    kind: 'whisper model',
    mirrorSetting: 'NOTES_WHISPER_MODEL_URL',
    defaultBaseUrl: DEFAULT_MODEL_BASE_URL,
    multilingual: !name.endsWith('.en'),
  };
}

export const WHISPER_MODELS: readonly KnownWhisperModel[] = [
  model('tiny.en', '921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f', 75),
  model('tiny', 'be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21', 75),
  model('base.en', 'a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002', 142),
  model('base', '60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe', 142),
  model('small.en', 'c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d', 466),
  model('small', '1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b', 466),
];

export const DEFAULT_WHISPER_MODEL = 'base.en';

/** `NOTES_WHISPER_MODEL_DIR`, else `models` in the data directory (`NOTES_DATA_DIR`, `.notes-data`). */
export function whisperModelDir(config: { NOTES_WHISPER_MODEL_DIR?: string | undefined }): string {
  return resolve(
    config.NOTES_WHISPER_MODEL_DIR ?? join(process.env.NOTES_DATA_DIR ?? '.notes-data', 'models'),
  );
}

export function knownWhisperModel(name: string): KnownWhisperModel | undefined {
  return WHISPER_MODELS.find((known) => known.name === name);
}
