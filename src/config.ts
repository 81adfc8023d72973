/** On zod/mini (src/domain/zod-mini.ts): every function reads its configuration at cold start. */
import * as z from './domain/zod-mini.ts';

/** An http(s) origin as browsers send it in `Origin`: no path, no wildcard. */
export const HTTP_ORIGIN = /^https?:\/\/[^/?#*\s]+$/;

/** The values of `NOTES_SPEECH_ENGINE`. */
export const SPEECH_ENGINES = ['auto', 'whisper', 'local', 'transcribe', 'openai'] as const;
export type SpeechEngineSetting = (typeof SPEECH_ENGINES)[number];

/** The values of `NOTES_TEXT_ENGINE`; a Lambda bundle is wired for one of them (lib/bundling.ts). */
export const TEXT_ENGINES = ['local', 'bedrock', 'openai'] as const;
export type TextEngine = (typeof TEXT_ENGINES)[number];

const nonEmpty = () => z.string().check(z.minLength(1));

/**
 * A public URL setting is shown to every client (the OAuth metadata, CORS answers): a user name or
 * password in it would be published. An `@` before the path ends a userinfo.
 */
const noUserinfo = z.refine<string>(
  (url: string) => !/^[^:]*:\/\/[^/?#]*@/.test(url),
  'must not contain a user name or password (user:password@), since every client is shown it; give the origin alone',
);

/** A whole number of seconds (or the like) from the environment's text, with its default. */
const integerBetween = (min: number, max: number, fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.gte(min), z.lte(max)), fallback);

/**
 * Typed configuration, read once from the environment and failing fast with a clear message.
 * On AWS the stack sets these; the local runtime sets them to its embedded stand-ins.
 */
const schema = z.object({
  AWS_REGION: z._default(nonEmpty(), 'us-east-1'),
  NOTES_TABLE_NAME: nonEmpty(),
  NOTES_BUCKET_NAME: nonEmpty(),
  NOTES_TRANSCRIPTION_QUEUE_URL: z.url(),
  NOTES_GENERATION_QUEUE_URL: z.url(),
  /** Only for the local runtime: endpoints of the embedded stand-ins. */
  NOTES_DYNAMODB_ENDPOINT: z.optional(z.url()),
  NOTES_S3_ENDPOINT: z.optional(z.url()),
  /**
   * Only for the local runtime: the object store's origin as clients reach it, when it is not
   * NOTES_S3_ENDPOINT (NOTES_STORAGE_PUBLIC_URL, e.g. in a container): presigned URLs point there.
   */
  NOTES_S3_PUBLIC_ENDPOINT: z.optional(z.url()),
  NOTES_SQS_ENDPOINT: z.optional(z.url()),
  /** Only for the local runtime: its generated credentials, which the stand-ins above require. */
  NOTES_LOCAL_ACCESS_KEY_ID: z.optional(nonEmpty()),
  NOTES_LOCAL_SECRET_ACCESS_KEY: z.optional(nonEmpty()),
  /**
   * `auto` (the default): Whisper (whisper.cpp, in the worker) when its model is present or can be
   * fetched, else pocketsphinx with a notice on each transcript; `whisper`: Whisper or not ready;
   * `local`: ffmpeg + pocketsphinx; `transcribe`: Amazon Transcribe jobs (AWS); `openai`: a server.
   */
  NOTES_SPEECH_ENGINE: z._default(z.enum(SPEECH_ENGINES), 'auto'),
  /** A known model's name (whisper-models.ts: `base.en`, `small`, ...) or the path of a ggml file. */
  NOTES_WHISPER_MODEL: z._default(nonEmpty(), 'base.en'),
  /** Where known models are downloaded from: a mirror serving the usual `ggml-<name>.bin` files. */
  NOTES_WHISPER_MODEL_URL: z.optional(z.url()),
  /** Where fetched models are kept. Default: `models` under NOTES_DATA_DIR (`.notes-data`). */
  NOTES_WHISPER_MODEL_DIR: z.optional(nonEmpty()),
  /** A multilingual model's language (`it`, `de`, ...); default: detected per recording. */
  NOTES_WHISPER_LANGUAGE: z.optional(z.string().check(z.regex(/^[a-z]{2,3}$/))),
  /**
   * The neural voice model the local diarizer tells speakers apart with (voice-models.ts:
   * `wespeaker-resnet34-lm`), an `.onnx` file's path, or `off` (MFCC and pitch statistics only).
   * Fetched once into the models directory; unavailable means the statistics, said on each transcript.
   */
  NOTES_VOICE_MODEL: z._default(nonEmpty(), 'wespeaker-resnet34-lm'),
  /** Where known voice models are downloaded from: a mirror serving the same file names. */
  NOTES_VOICE_MODEL_URL: z.optional(z.url()),
  /** `openai`: a server speaking OpenAI's /v1/audio/transcriptions (whisper.cpp, speaches, hosted). */
  NOTES_OPENAI_BASE_URL: z.optional(z.url()),
  NOTES_OPENAI_API_KEY: z.optional(nonEmpty()),
  NOTES_OPENAI_MODEL: z._default(nonEmpty(), 'whisper-1'),
  NOTES_OPENAI_LANGUAGE: z.optional(z.string().check(z.minLength(2))),
  NOTES_OPENAI_PATH: z.optional(z.string().check(z.startsWith('/'))),
  NOTES_TRANSCRIBE_JOB_PREFIX: z._default(z.string().check(z.regex(/^[0-9a-zA-Z._-]{1,60}$/)), 'notes-'),
  NOTES_TRANSCRIBE_LANGUAGE_CODE: z._default(z.string().check(z.minLength(2)), 'en-US'),
  /**
   * A role Amazon Transcribe assumes to read recordings and write its output (the stack makes it):
   * with it, jobs past the concurrent-job quota wait in Transcribe's job queue; without it, Transcribe
   * refuses them and the queue retries (then fails) the work. Pattern from the API reference.
   */
  NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^arn:(aws|aws-cn|aws-us-gov|aws-iso-{0,1}[a-z]{0,1}):iam::[0-9]{0,63}:role\/[A-Za-z0-9:_/+=,@.-]{0,1024}$/,
        ),
      ),
  ),
  /**
   * Text engine for Insights, artifacts and Ask: `local` (extractive, no LLM), `bedrock` (Converse),
   * `openai` (chat completions).
   */
  NOTES_TEXT_ENGINE: z._default(z.enum(TEXT_ENGINES), 'local'),
  /**
   * A model ID or an inference profile ID. Current Claude models on Bedrock are invoked through a
   * profile (`us.`, `eu.`, `apac.`, `jp.`, `global.`); docs/deploy.md says how the default was chosen.
   */
  NOTES_BEDROCK_MODEL_ID: z._default(nonEmpty(), 'us.anthropic.claude-sonnet-4-6'),
  /**
   * Limit for one Bedrock generation in the workers (Insights, an artifact), retries included; it
   * must end before the worker's function timeout. Ask uses its own 20 s (src/wiring/ask-services.ts).
   */
  NOTES_BEDROCK_TIMEOUT_SECONDS: integerBetween(5, 3600, 300),
  /** Only for tests and stand-ins: a Bedrock Runtime endpoint other than AWS's. */
  NOTES_BEDROCK_ENDPOINT: z.optional(z.url()),
  NOTES_OPENAI_CHAT_BASE_URL: z.optional(z.url()),
  NOTES_OPENAI_CHAT_API_KEY: z.optional(nonEmpty()),
  NOTES_OPENAI_CHAT_MODEL: z._default(nonEmpty(), 'llama3.1'),
  /** Podcast voices: `local` (flite, English) or `polly` (Amazon Polly neural voices). */
  NOTES_SPEECH_SYNTHESIZER: z._default(z.enum(['local', 'polly']), 'local'),
  NOTES_FLITE_PATH: z._default(nonEmpty(), 'flite'),
  /** Local speaker diarization for engines without speaker labels (`off` to skip it). */
  NOTES_DIARIZATION: z._default(z.enum(['on', 'off']), 'on'),
  NOTES_FFMPEG_PATH: z._default(nonEmpty(), 'ffmpeg'),
  NOTES_POCKETSPHINX_PATH: z._default(nonEmpty(), 'pocketsphinx_continuous'),
  /**
   * The local engine cuts a recording at least 1.5 times this long into chunks of about this length,
   * recognised on several cores at once (speakers come from one diarization of the whole file).
   * Chunks are also the turns recordings take at the recognisers, so a short recording waits for one
   * at most; shorter chunks cost more boundaries. Unset: each engine's own (pocketsphinx 60 s,
   * Whisper 120 s: a Whisper chunk loads the model and pads its last 30 s window).
   */
  NOTES_RECOGNIZER_CHUNK_SECONDS: z.optional(z.coerce.number().check(z.int(), z.gte(30), z.lte(3600))),
  /**
   * `on` (the local runtime sets it): a queue worker whose storage is full or cannot be written puts
   * its message back to wait for space, without spending one of its bounded receives
   * (src/workers/storage-wait.ts). `off` (AWS): DynamoDB and S3 do not fill up, and a function's own
   * /tmp filling up is the work's size, which waiting does not change: the ordinary retries apply.
   */
  NOTES_WAIT_FOR_STORAGE: z._default(z.enum(['on', 'off']), 'off'),
  /** How long a worker's claim on a job lasts without renewal (renewed every third of it). */
  NOTES_JOB_LEASE_SECONDS: z._default(z.coerce.number().check(z.gte(1), z.lte(3600)), 60),
  /** Where workers keep temporary files; the local runtime uses `<data dir>/work` and empties it on start. */
  NOTES_WORK_DIR: z.optional(nonEmpty()),
  NOTES_UPLOAD_URL_TTL_SECONDS: integerBetween(60, 604_800, 3600),
  /**
   * Days a note the retention moved to the trash stays there before it is deleted for good
   * (src/domain/retention.ts). Notes a person trashed stay until a person deletes them.
   */
  NOTES_TRASH_DAYS: integerBetween(1, 3650, 30),
  /**
   * The MCP server's OAuth authorization server (src/oauth). Optional here so that the REST API runs
   * without them; the OAuth functions and the MCP verifier fail with a clear message when they need one.
   * NOTES_PUBLIC_URL: the service's external origin (the issuer; the MCP resource is `<it>/mcp`). No
   * path: the well-known metadata documents are served at the root (RFC 8414, RFC 9728).
   */
  NOTES_PUBLIC_URL: z.optional(
    z.pipe(
      z
        .url()
        .check(
          z.regex(
            /^https?:\/\/[^/?#]+\/?$/,
            'must be an http(s) origin, e.g. https://notes.example.com (no path)',
          ),
          noUserinfo,
        ),
      z.transform((url) => url.replace(/\/+$/, '')),
    ),
  ),
  /**
   * Browser origins, besides the service's own, allowed to call /mcp (comma-separated), e.g. the MCP
   * Inspector's web UI `http://localhost:6274`. Each must be an origin: no wildcard, no path.
   */
  NOTES_MCP_ALLOWED_ORIGINS: z.pipe(
    z.pipe(
      z._default(z.string(), ''),
      z.transform((list) =>
        list
          .split(',')
          .map((origin) => origin.trim())
          .filter((origin) => origin.length > 0),
      ),
    ),
    z.array(
      z
        .string()
        .check(
          z.regex(
            HTTP_ORIGIN,
            'each must be an http(s) origin such as http://localhost:6274 (no path, no wildcard)',
          ),
        ),
    ),
  ),
  /**
   * The web app's origin when it is not the service's own (on AWS: the CloudFront distribution that
   * serves it). Its `/app/callback` becomes a redirect URI of the first-party client `notes-web`, and
   * REST answers that origin's CORS requests, and only that one's. Unset locally, where the app and
   * the API share one origin.
   */
  NOTES_WEB_APP_URL: z.optional(
    z
      .string()
      .check(
        z.regex(HTTP_ORIGIN, 'must be an http(s) origin, e.g. https://app.example.com (no path)'),
        noUserinfo,
      ),
  ),
  /** The access-token signing key: an EC P-256 private JWK, as JSON (see src/oauth/signing-key.ts). */
  NOTES_OAUTH_SIGNING_KEY: z.optional(nonEmpty()),
  /** On AWS instead: the KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs access tokens. */
  NOTES_OAUTH_KMS_KEY_ID: z.optional(nonEmpty()),
  /** How users sign in: `local` (paste an API key) or `oidc` (an OpenID provider: Cognito on AWS). */
  NOTES_OAUTH_UPSTREAM: z._default(z.enum(['local', 'oidc']), 'local'),
  NOTES_OIDC_ISSUER: z.optional(z.url()),
  NOTES_OIDC_CLIENT_ID: z.optional(nonEmpty()),
  NOTES_OIDC_CLIENT_SECRET: z.optional(nonEmpty()),
});

export type Config = z.infer<typeof schema>;

let cached: Config | undefined;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  cached ??= loadConfigFrom(env);
  return cached;
}

/** Reads `env` without caching (tests, tools). */
export function loadConfigFrom(env: NodeJS.ProcessEnv): Config {
  return parseSettings(schema, env);
}

/**
 * NOTES_TRASH_DAYS alone, read (default, limits, message) as `loadConfig` reads it, for code that
 * runs before the rest of the environment is set and must not cache it: the local runtime's web app
 * configuration (src/local/web-app-files.ts), made before the runtime knows its own address.
 */
export function trashDaysSetting(env: NodeJS.ProcessEnv = process.env): number {
  return parseSettings(z.pick(schema, { NOTES_TRASH_DAYS: true }), env).NOTES_TRASH_DAYS;
}

function parseSettings<T extends z.ZodMiniType>(settings: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = z.safeParse(settings, env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
