import * as z from 'zod';

/** An http(s) origin as browsers send it in `Origin`: no path, no wildcard. */
export const HTTP_ORIGIN = /^https?:\/\/[^/?#*\s]+$/;

/**
 * Typed configuration, read once from the environment and failing fast with a clear message.
 * On AWS the stack sets these; the local runtime sets them to its embedded stand-ins.
 */
const schema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  NOTES_TABLE_NAME: z.string().min(1),
  NOTES_BUCKET_NAME: z.string().min(1),
  NOTES_TRANSCRIPTION_QUEUE_URL: z.url(),
  NOTES_GENERATION_QUEUE_URL: z.url(),
  /** Only for the local runtime: endpoints of the embedded stand-ins. */
  NOTES_DYNAMODB_ENDPOINT: z.url().optional(),
  NOTES_S3_ENDPOINT: z.url().optional(),
  NOTES_SQS_ENDPOINT: z.url().optional(),
  /** Only for the local runtime: its generated credentials, which the stand-ins above require. */
  NOTES_LOCAL_ACCESS_KEY_ID: z.string().min(1).optional(),
  NOTES_LOCAL_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `local`: ffmpeg + pocketsphinx in the worker; `transcribe`: Amazon Transcribe jobs (AWS). */
  NOTES_SPEECH_ENGINE: z.enum(['local', 'transcribe', 'openai']).default('local'),
  /** `openai`: a server speaking OpenAI's /v1/audio/transcriptions (whisper.cpp, speaches, hosted). */
  NOTES_OPENAI_BASE_URL: z.url().optional(),
  NOTES_OPENAI_API_KEY: z.string().min(1).optional(),
  NOTES_OPENAI_MODEL: z.string().min(1).default('whisper-1'),
  NOTES_OPENAI_LANGUAGE: z.string().min(2).optional(),
  NOTES_OPENAI_PATH: z.string().startsWith('/').optional(),
  NOTES_TRANSCRIBE_JOB_PREFIX: z
    .string()
    .regex(/^[0-9a-zA-Z._-]{1,60}$/)
    .default('notes-'),
  NOTES_TRANSCRIBE_LANGUAGE_CODE: z.string().min(2).default('en-US'),
  /**
   * A role Amazon Transcribe assumes to read recordings and write its output (the stack makes it):
   * with it, jobs past the concurrent-job quota wait in Transcribe's job queue; without it, Transcribe
   * refuses them and the queue retries (then fails) the work. Pattern from the API reference.
   */
  NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN: z
    .string()
    .regex(
      /^arn:(aws|aws-cn|aws-us-gov|aws-iso-{0,1}[a-z]{0,1}):iam::[0-9]{0,63}:role\/[A-Za-z0-9:_/+=,@.-]{0,1024}$/,
    )
    .optional(),
  /**
   * Text engine for Insights, artifacts and Ask: `local` (extractive, no LLM), `bedrock` (Converse),
   * `openai` (chat completions).
   */
  NOTES_TEXT_ENGINE: z.enum(['local', 'bedrock', 'openai']).default('local'),
  /**
   * A model ID or an inference profile ID. Current Claude models on Bedrock are invoked through a
   * profile (`us.`, `eu.`, `apac.`, `jp.`, `global.`); docs/deploy.md says how the default was chosen.
   */
  NOTES_BEDROCK_MODEL_ID: z.string().min(1).default('us.anthropic.claude-sonnet-4-6'),
  /**
   * Limit for one Bedrock generation in the workers (Insights, an artifact), retries included; it
   * must end before the worker's function timeout. Ask uses its own 20 s (src/wiring/ask-services.ts).
   */
  NOTES_BEDROCK_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(3600).default(300),
  /** Only for tests and stand-ins: a Bedrock Runtime endpoint other than AWS's. */
  NOTES_BEDROCK_ENDPOINT: z.url().optional(),
  NOTES_OPENAI_CHAT_BASE_URL: z.url().optional(),
  NOTES_OPENAI_CHAT_API_KEY: z.string().min(1).optional(),
  NOTES_OPENAI_CHAT_MODEL: z.string().min(1).default('llama3.1'),
  /** Podcast voices: `local` (flite, English) or `polly` (Amazon Polly neural voices). */
  NOTES_SPEECH_SYNTHESIZER: z.enum(['local', 'polly']).default('local'),
  NOTES_FLITE_PATH: z.string().min(1).default('flite'),
  /** Local speaker diarization for engines without speaker labels (`off` to skip it). */
  NOTES_DIARIZATION: z.enum(['on', 'off']).default('on'),
  NOTES_FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  NOTES_POCKETSPHINX_PATH: z.string().min(1).default('pocketsphinx_continuous'),
  /**
   * The local engine cuts a recording at least 1.5 times this long into chunks of about this length,
   * recognised on several cores at once (speakers come from one diarization of the whole file).
   * Shorter chunks spread a medium recording over more cores, at the cost of more boundaries.
   */
  NOTES_RECOGNIZER_CHUNK_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** How long a worker's claim on a job lasts without renewal (renewed every third of it). */
  NOTES_JOB_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  /** Where workers keep temporary files; the local runtime uses `<data dir>/work` and empties it on start. */
  NOTES_WORK_DIR: z.string().min(1).optional(),
  NOTES_UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
  /**
   * The MCP server's OAuth authorization server (src/oauth). Optional here so that the REST API runs
   * without them; the OAuth functions and the MCP verifier fail with a clear message when they need one.
   * NOTES_PUBLIC_URL: the service's external origin (the issuer; the MCP resource is `<it>/mcp`). No
   * path: the well-known metadata documents are served at the root (RFC 8414, RFC 9728).
   */
  NOTES_PUBLIC_URL: z
    .url()
    .regex(/^https?:\/\/[^/?#]+\/?$/, 'must be an http(s) origin, e.g. https://notes.example.com (no path)')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /**
   * Browser origins, besides the service's own, allowed to call /mcp (comma-separated), e.g. the MCP
   * Inspector's web UI `http://localhost:6274`. Each must be an origin: no wildcard, no path.
   */
  NOTES_MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((list) =>
      list
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin.length > 0),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            HTTP_ORIGIN,
            'each must be an http(s) origin such as http://localhost:6274 (no path, no wildcard)',
          ),
      ),
    ),
  /**
   * The web app's origin when it is not the service's own (on AWS: the CloudFront distribution that
   * serves it). Its `/app/callback` becomes a redirect URI of the first-party client `notes-web`, and
   * REST answers that origin's CORS requests, and only that one's. Unset locally, where the app and
   * the API share one origin.
   */
  NOTES_WEB_APP_URL: z
    .string()
    .regex(HTTP_ORIGIN, 'must be an http(s) origin, e.g. https://app.example.com (no path)')
    .optional(),
  /** The access-token signing key: an EC P-256 private JWK, as JSON (see src/oauth/signing-key.ts). */
  NOTES_OAUTH_SIGNING_KEY: z.string().min(1).optional(),
  /** On AWS instead: the KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs access tokens. */
  NOTES_OAUTH_KMS_KEY_ID: z.string().min(1).optional(),
  /** How users sign in: `local` (paste an API key) or `oidc` (an OpenID provider: Cognito on AWS). */
  NOTES_OAUTH_UPSTREAM: z.enum(['local', 'oidc']).default('local'),
  NOTES_OIDC_ISSUER: z.url().optional(),
  NOTES_OIDC_CLIENT_ID: z.string().min(1).optional(),
  NOTES_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
});

export type Config = z.infer<typeof schema>;

let cached: Config | undefined;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  cached ??= loadConfigFrom(env);
  return cached;
}

/** Reads `env` without caching (tests, tools). */
export function loadConfigFrom(env: NodeJS.ProcessEnv): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
