/**
 * whisper.cpp's C API, called through koffi (a foreign-function interface) in the native module of
 * `@fugood/node-whisper-<platform>-<arch>`, which exports it. The module's own JavaScript methods return
 * only each segment's text and times; the C API gives each token's probability (a word's confidence),
 * whisper.cpp's detected language and its failures as a return code.
 *
 * The structs below follow whisper.h of whisper.cpp 1.9 (the version that module is built from). A
 * struct laid out wrongly would be read wrongly without an error, so `loadWhisperApi` reads
 * whisper.cpp's own defaults through them first and refuses a module whose defaults read otherwise.
 * Loaded in the whisper.cpp process only (whisper-process.ts) and by the readiness check.
 */
import type * as Koffi from 'koffi';

type KoffiModule = typeof Koffi;
type Pointer = unknown;

export interface WhisperTokenData {
  id: number;
  p: number;
  /** Centiseconds from the start of the audio heard (token timestamps on). */
  t0: number;
  t1: number;
}

/** The fields of whisper_full_params set here; the rest keep whisper.cpp's defaults. */
export interface WhisperFullOptions {
  threads: number;
  /** `auto` to detect. */
  language: string;
  onProgress?: (percent: number) => void;
}

export interface WhisperApi {
  version: string;
  initFromFile(path: string): Pointer | null;
  /** whisper_full on 16 kHz mono float samples; 0 on success, as whisper.cpp returns. */
  full(context: Pointer, samples: Float32Array, options: WhisperFullOptions): number;
  segments(context: Pointer): number;
  tokens(context: Pointer, segment: number): number;
  tokenText(context: Pointer, segment: number, token: number): string;
  tokenData(context: Pointer, segment: number, token: number): WhisperTokenData;
  /** Ids from this one up are special tokens (end of text, timestamps, language, task). */
  endOfText(context: Pointer): number;
  detectedLanguage(context: Pointer): string | undefined;
  free(context: Pointer): void;
  /** Where whisper.cpp's log lines go (it logs every model detail by default). */
  onLog(write: (level: 'error' | 'other', text: string) => void): void;
}

const GGML_LOG_LEVEL_ERROR = 4;
const WHISPER_SAMPLING_GREEDY = 0;

function declareTypes(koffi: KoffiModule) {
  const contextParams = koffi.struct({
    use_gpu: 'bool',
    flash_attn: 'bool',
    gpu_device: 'int',
    dtw_token_timestamps: 'bool',
    dtw_aheads_preset: 'int',
    dtw_n_top: 'int',
    dtw_aheads: koffi.struct({ n_heads: 'size_t', heads: 'void *' }),
    dtw_mem_size: 'size_t',
  });
  const vadParams = koffi.struct({
    threshold: 'float',
    min_speech_duration_ms: 'int',
    min_silence_duration_ms: 'int',
    max_speech_duration_s: 'float',
    speech_pad_ms: 'int',
    samples_overlap: 'float',
  });
  // Unnamed: a named type is registered once per process, and the API may be loaded more than once.
  const progressCallback = koffi.proto('void', ['void *', 'void *', 'int', 'void *']);
  const logCallback = koffi.proto('void', ['int', 'const char *', 'void *']);
  const fullParams = koffi.struct({
    strategy: 'int',
    n_threads: 'int',
    n_max_text_ctx: 'int',
    offset_ms: 'int',
    duration_ms: 'int',
    translate: 'bool',
    no_context: 'bool',
    no_timestamps: 'bool',
    single_segment: 'bool',
    print_special: 'bool',
    print_progress: 'bool',
    print_realtime: 'bool',
    print_timestamps: 'bool',
    token_timestamps: 'bool',
    thold_pt: 'float',
    thold_ptsum: 'float',
    max_len: 'int',
    split_on_word: 'bool',
    max_tokens: 'int',
    debug_mode: 'bool',
    audio_ctx: 'int',
    tdrz_enable: 'bool',
    suppress_regex: 'void *',
    initial_prompt: 'void *',
    carry_initial_prompt: 'bool',
    prompt_tokens: 'void *',
    prompt_n_tokens: 'int',
    language: 'const char *',
    detect_language: 'bool',
    suppress_blank: 'bool',
    suppress_nst: 'bool',
    temperature: 'float',
    max_initial_ts: 'float',
    length_penalty: 'float',
    temperature_inc: 'float',
    entropy_thold: 'float',
    logprob_thold: 'float',
    no_speech_thold: 'float',
    greedy: koffi.struct({ best_of: 'int' }),
    beam_search: koffi.struct({ beam_size: 'int', patience: 'float' }),
    new_segment_callback: 'void *',
    new_segment_callback_user_data: 'void *',
    progress_callback: koffi.pointer(progressCallback),
    progress_callback_user_data: 'void *',
    encoder_begin_callback: 'void *',
    encoder_begin_callback_user_data: 'void *',
    abort_callback: 'void *',
    abort_callback_user_data: 'void *',
    logits_filter_callback: 'void *',
    logits_filter_callback_user_data: 'void *',
    grammar_rules: 'void *',
    n_grammar_rules: 'size_t',
    i_start_rule: 'size_t',
    grammar_penalty: 'float',
    vad: 'bool',
    vad_model_path: 'void *',
    vad_params: vadParams,
  });
  const tokenData = koffi.struct({
    id: 'int32_t',
    tid: 'int32_t',
    p: 'float',
    plog: 'float',
    pt: 'float',
    ptsum: 'float',
    t0: 'int64_t',
    t1: 'int64_t',
    t_dtw: 'int64_t',
    vlen: 'float',
  });
  return { contextParams, fullParams, tokenData, progressCallback, logCallback };
}

/**
 * whisper.cpp's defaults (whisper_full_default_params, whisper_context_default_params), as whisper.cpp
 * 1.9 sets them: read through the structs above, they show whether those structs match the module's.
 * The checks span each struct to its last field, so a field missing or added anywhere shows.
 */
const EXPECTED_FULL_DEFAULTS: Record<string, number | boolean> = {
  n_max_text_ctx: 16384,
  no_context: true,
  print_progress: true,
  print_timestamps: true,
  thold_pt: 0.01,
  thold_ptsum: 0.01,
  suppress_blank: true,
  max_initial_ts: 1,
  length_penalty: -1,
  temperature_inc: 0.2,
  entropy_thold: 2.4,
  logprob_thold: -1,
  no_speech_thold: 0.6,
  'greedy.best_of': 5,
  'beam_search.beam_size': -1,
  'beam_search.patience': -1,
  grammar_penalty: 100,
  vad: false,
  'vad_params.threshold': 0.5,
  'vad_params.min_speech_duration_ms': 250,
  'vad_params.min_silence_duration_ms': 100,
  'vad_params.speech_pad_ms': 30,
  'vad_params.samples_overlap': 0.1,
};
const EXPECTED_CONTEXT_DEFAULTS: Record<string, number | boolean> = {
  use_gpu: true,
  gpu_device: 0,
  dtw_token_timestamps: false,
  dtw_n_top: -1,
  dtw_mem_size: 128 * 1024 * 1024,
};

/** The first field of `values` that reads otherwise than `expected`, described; undefined if none. */
export function layoutMismatch(
  values: Record<string, unknown>,
  expected: Record<string, number | boolean>,
): string | undefined {
  for (const [path, want] of Object.entries(expected)) {
    const got = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], values);
    const same =
      typeof want === 'number' ? typeof got === 'number' && Math.abs(got - want) < 1e-6 : got === want;
    if (!same) return `${path} reads ${String(got)}, not ${String(want)}`;
  }
  return undefined;
}

export class WhisperApiMismatchError extends Error {}

/**
 * whisper.cpp's C API in `bindingPath` through `koffi`; throws WhisperApiMismatchError when the module's
 * structs are not laid out as this file declares them.
 */
export function loadWhisperApi(koffi: KoffiModule, bindingPath: string): WhisperApi {
  const lib = koffi.load(bindingPath);
  const types = declareTypes(koffi);
  const version = lib.func('const char *whisper_version()')() as string;
  const fullDefaults = lib.func('whisper_full_default_params_by_ref', koffi.pointer(types.fullParams), [
    'int',
  ]);
  const contextDefaults = lib.func(
    'whisper_context_default_params_by_ref',
    koffi.pointer(types.contextParams),
    [],
  );
  const freeFullParams = lib.func('whisper_free_params', 'void', [koffi.pointer(types.fullParams)]);
  const freeContextParams = lib.func('whisper_free_context_params', 'void', [
    koffi.pointer(types.contextParams),
  ]);
  const readDefaults = <T>(make: () => unknown, type: Koffi.TypeObject, free: (pointer: unknown) => void) => {
    const pointer = make();
    try {
      return koffi.decode(pointer, type) as T;
    } finally {
      free(pointer);
    }
  };
  const full = readDefaults<Record<string, unknown>>(
    () => fullDefaults(WHISPER_SAMPLING_GREEDY),
    types.fullParams,
    freeFullParams,
  );
  const context = readDefaults<Record<string, unknown>>(
    contextDefaults,
    types.contextParams,
    freeContextParams,
  );
  const mismatch =
    layoutMismatch(full, EXPECTED_FULL_DEFAULTS) ?? layoutMismatch(context, EXPECTED_CONTEXT_DEFAULTS);
  if (mismatch) {
    throw new WhisperApiMismatchError(
      `whisper.cpp ${version} in ${bindingPath} is laid out otherwise than whisper.cpp 1.9 (${mismatch}); install the binding version in package.json`,
    );
  }

  const initFromFile = lib.func('whisper_init_from_file_with_params', 'void *', [
    'const char *',
    types.contextParams,
  ]);
  const whisperFull = lib.func('whisper_full', 'int', ['void *', types.fullParams, 'float *', 'int']);
  const nSegments = lib.func('int whisper_full_n_segments(void *ctx)');
  const nTokens = lib.func('int whisper_full_n_tokens(void *ctx, int segment)');
  const tokenText = lib.func('const char *whisper_full_get_token_text(void *ctx, int segment, int token)');
  const tokenData = lib.func('whisper_full_get_token_data', types.tokenData, ['void *', 'int', 'int']);
  const tokenEot = lib.func('int whisper_token_eot(void *ctx)');
  const langId = lib.func('int whisper_full_lang_id(void *ctx)');
  const langStr = lib.func('const char *whisper_lang_str(int id)');
  const free = lib.func('void whisper_free(void *ctx)');
  const logSet = lib.func('whisper_log_set', 'void', [koffi.pointer(types.logCallback), 'void *']);

  return {
    version,
    initFromFile: (path) => initFromFile(path, { ...context, use_gpu: false, flash_attn: false }),
    full(ctx, samples, options) {
      const progress = options.onProgress
        ? koffi.register(
            (_ctx: unknown, _state: unknown, percent: number) => options.onProgress?.(percent),
            koffi.pointer(types.progressCallback),
          )
        : null;
      try {
        return whisperFull(
          ctx,
          {
            ...full,
            n_threads: options.threads,
            language: options.language,
            detect_language: false,
            print_progress: false,
            print_timestamps: false,
            token_timestamps: true,
            progress_callback: progress,
          },
          samples,
          samples.length,
        ) as number;
      } finally {
        if (progress !== null) koffi.unregister(progress);
      }
    },
    segments: (ctx) => nSegments(ctx) as number,
    tokens: (ctx, segment) => nTokens(ctx, segment) as number,
    tokenText: (ctx, segment, token) => tokenText(ctx, segment, token) as string,
    tokenData(ctx, segment, token) {
      const data = tokenData(ctx, segment, token) as Record<string, number | bigint>;
      return { id: Number(data.id), p: Number(data.p), t0: Number(data.t0), t1: Number(data.t1) };
    },
    endOfText: (ctx) => tokenEot(ctx) as number,
    detectedLanguage(ctx) {
      const id = langId(ctx) as number;
      return id < 0 ? undefined : ((langStr(id) as string | null) ?? undefined);
    },
    free: (ctx) => free(ctx),
    onLog(write) {
      const callback = koffi.register(
        (level: number, text: string | null) =>
          write(level === GGML_LOG_LEVEL_ERROR ? 'error' : 'other', text ?? ''),
        koffi.pointer(types.logCallback),
      );
      logSet(callback, null);
    },
  };
}
