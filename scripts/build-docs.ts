/**
 * `npm run docs:build`: builds the published documentation files ({docs_url} in the spec) from their
 * sources and writes them into docs/public/, which the local runtime serves and the AWS docs site
 * deploys (the contract itself is served from the repository root as /openapi.yaml):
 *
 *   llms.txt, llms-full.txt, skill.md, skill.json, references/*.md
 *
 * It also refreshes the generated blocks (`<!-- generated:NAME -->` ... `<!-- /generated:NAME -->`)
 * of the skill's references: the operations table of references/rest.md comes from openapi.yaml,
 * the CLI tables of references/cli.md from CLI below, the scope and tool tables of references/mcp.md
 * (and skill.json's `interfaces.mcp`) from the MCP server's own definitions (src/mcp/tools.ts,
 * src/domain/scopes.ts). It also bundles the MCP tools' output schemas from openapi.yaml into
 * src/mcp/output-schemas.json (scripts/mcp-output-schemas.ts). Output is deterministic (no timestamps), so
 * test/unit/published-docs-are-current.test.ts can compare the files with `renderDocs(readDocsSources())`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { mcpScopes } from '../src/domain/scopes.ts';
// The MCP server's own definitions: the tools (names, scopes, annotations, inputs) and the scopes.
// Importing the tools loads the domain modules and zod (under half a second), no AWS client.
import { MCP_TOOLS } from '../src/mcp/tools.ts';
import { DEFAULT_SCOPES } from '../src/oauth/scopes.ts';
import { firstPartyOnlyOperations } from '../src/operation-scopes.ts';
import type { OperationId } from '../src/routes.ts';
import { mcpOutputSchemas } from './mcp-output-schemas.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..');
/** Where the published files go (repository-relative, POSIX separators). */
export const PUBLIC_DIR = 'docs/public';
export const SKILL_DIR = 'skills/notes';
/** The MCP tools' output schemas, bundled from openapi.yaml (read by src/mcp/output-schemas.ts). */
export const MCP_OUTPUT_SCHEMAS = 'src/mcp/output-schemas.json';
const SKILL_REFERENCES = [
  'references/cli.md',
  'references/rest.md',
  'references/mcp.md',
  'references/polling.md',
];
/**
 * docs/*.md guides in the order llms-full.txt gives them (the pages for users first: self-hosting
 * with the configuration table, the REST walk-through, MCP); any other guide follows alphabetically.
 */
const GUIDE_ORDER = [
  'self-hosting.md',
  'container.md',
  'web-app.md',
  'api.md',
  'mcp.md',
  'cli-and-skill.md',
  'api-decisions.md',
  'transcripts.md',
  'ask.md',
  'deploy.md',
  'threat-model.md',
  'benchmarks.md',
];
/**
 * docs/*.md files that are not published: the index (docs/README.md, links between pages and
 * nothing else) and the contributors' page (the architecture and the tests, for people changing the
 * code, not using it).
 */
const UNPUBLISHED_DOCS = ['README.md', 'development.md'];
/** README sections (`## ` headings, with their subsections) useful to users of the service. */
const README_SECTIONS = ['What it does', 'Quick start', 'Other ways to run it'];
const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';
/**
 * Where the MCP server and its OAuth metadata are, relative to the service's base URL (not the docs
 * site); src/routes.ts `publicRoutes` serves them (the docs test checks that it does).
 */
export const MCP_PATHS = {
  endpoint: '/mcp',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource/mcp',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
};
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The CLI's surface (the `cli/` package, bin `notes`). The skill's references/cli.md tables and
 * skill.json are generated from it; when the CLI exports its own command table, import that here.
 */
export const CLI = {
  packageDir: 'cli',
  bin: 'notes',
  requires: 'Node.js 20 or newer; no runtime dependencies',
  output: 'JSON on stdout, diagnostics on stderr',
  env: [
    {
      name: 'NOTES_API_KEY',
      default: null,
      description:
        'API key (begins with `svc_sk_`). Keep it in the environment or a secret manager; never in prompts, logs or repositories.',
    },
    { name: 'NOTES_BASE_URL', default: DEFAULT_BASE_URL, description: 'Base URL of the Notes service.' },
  ],
  commands: [
    {
      usage: 'notes auth status',
      operationId: 'getCurrentAccount',
      description: "Check the key: the account it belongs to and the key's public ID.",
    },
    {
      usage: 'notes notes list [--collection <collection>]',
      operationId: 'listNotes',
      description: 'List notes (IDs and titles), newest first; only those in a collection (ID or name).',
    },
    {
      usage: 'notes notes get <id>',
      operationId: 'getNote',
      description: 'One note with its collections, completed transcription and Insights; its ETag on stderr.',
    },
    {
      usage: 'notes notes rename <id> <title> [--if-match <etag>]',
      operationId: 'updateNote',
      description: 'Rename a note; with --if-match only if it has not changed since you read it.',
    },
    {
      usage: 'notes notes trash <id> [--if-match <etag>]',
      operationId: 'updateNote',
      description: 'Move a note to the trash (reversible).',
    },
    {
      usage: 'notes notes restore <id> [--if-match <etag>]',
      operationId: 'updateNote',
      description: 'Restore a note from the trash.',
    },
    {
      usage: 'notes notes delete <id> --confirm <id>',
      operationId: 'deleteNote',
      description:
        "Permanently delete a note and everything in it. Needs the user's explicit confirmation first.",
      confirm: true,
    },
    {
      usage: 'notes collections list',
      operationId: 'listCollections',
      description: 'Every collection (ID, name and instructions), by name.',
    },
    {
      usage: 'notes collections create <name> [--instructions <text> | --instructions-file <path>]',
      operationId: 'createCollection',
      description:
        "Create a collection (names are unique regardless of case), with instructions for its notes' Insights and artifacts if given.",
    },
    {
      usage: 'notes collections rename <collection> <name>',
      operationId: 'updateCollection',
      description: 'Rename a collection (given by ID or name); its notes stay in it.',
    },
    {
      usage:
        'notes collections update <collection> [--name <name>] [--instructions <text> | --instructions-file <path> | --clear-instructions]',
      operationId: 'updateCollection',
      description:
        'Rename a collection and/or set or clear its instructions; results made with other instructions then say outdated.',
    },
    {
      usage: 'notes collections delete <collection>',
      operationId: 'deleteCollection',
      description: 'Delete a collection; its notes are kept.',
    },
    {
      usage: 'notes collections add <collection> <id...>',
      operationId: 'addNoteToCollection',
      description: 'File notes in a collection (a note can be in several).',
    },
    {
      usage: 'notes collections remove <collection> <id>',
      operationId: 'removeNoteFromCollection',
      description: 'Take a note out of a collection (the note is kept).',
    },
    {
      usage: 'notes transcribe <file...> [--title <title>] [--wait]',
      operationId: 'submitTranscription',
      description:
        'Create a note from each local audio file and upload it; --wait waits for the transcripts (several files: one JSON line each).',
    },
    {
      usage: 'notes watch <folder> [--collection <collection>] [--after leave|move] [--wait] [--once]',
      operationId: 'submitTranscription',
      description:
        'Transcribe every recording that appears in a folder once it stops growing, exactly once (by content hash: restarts, renames and copies never make a second note); one JSON line per file; waits out outages; --once for cron.',
    },
    {
      usage: 'notes transcription get <id> [--format json|srt|vtt|md]',
      operationId: 'getTranscription',
      description:
        'The transcript (JSON by default, or SubRip, WebVTT, Markdown); the job status while it is not ready.',
    },
    {
      usage:
        'notes transcription edit <id> --segment <N> [--text <text>] [--speaker <name>] [--if-match <etag>]',
      operationId: 'editTranscription',
      description:
        "Correct a segment's text and/or speaker (a new revision; word timings kept where words did not change).",
    },
    {
      usage: 'notes transcription merge <id> --segment <N> [--if-match <etag>]',
      operationId: 'editTranscription',
      description: 'Merge a segment with the next one.',
    },
    {
      usage: 'notes transcription split <id> --segment <N> (--at-word <K> | --at-ms <T>) [--if-match <etag>]',
      operationId: 'editTranscription',
      description: 'Split a segment in two, before word K (from 0) or at T ms.',
    },
    {
      usage: 'notes transcription undo <id> [--original] [--if-match <etag>]',
      operationId: 'undoTranscriptionEdit',
      description: "Undo the last correction, or go back to the recogniser's transcript (--original).",
    },
    {
      usage: 'notes transcription delete <id> --confirm <id>',
      operationId: 'deleteTranscription',
      description:
        "Remove the transcript, Insights and artifacts; keep the note and its audio. Needs the user's explicit confirmation first.",
      confirm: true,
    },
    {
      usage: 'notes insights generate <id> [--wait]',
      operationId: 'generateInsights',
      description: 'Start Insights generation; --wait waits for the Insights.',
    },
    {
      usage: 'notes insights get <id>',
      operationId: 'getInsights',
      description: 'The Insights, or the job status while they are generated.',
    },
    {
      usage:
        'notes artifacts generate <id> <epiphany|deep_research|podcast> [--language <language>] [--regenerate] [--wait]',
      operationId: 'generateNoteArtifact',
      description: 'Generate an artifact (language auto, or e.g. en, pt-BR); --wait waits for it.',
    },
    {
      usage: 'notes artifacts get <id> <kind>',
      operationId: 'getNoteArtifact',
      description: 'The artifact, or the job status while it is generated.',
    },
    {
      usage: 'notes ask <question> [--note <id>...] [--collection <collection>]',
      operationId: 'askWorkspace',
      description:
        'Ask a question across processed notes (or only the given ones, or those in a collection); keep the returned note_ids in the answer.',
    },
    {
      usage: 'notes keys list',
      operationId: 'listApiKeys',
      description: "The account's API keys: ID, name, prefix, created, revoked; never a secret.",
    },
    {
      usage: 'notes keys create <name> [--scope <scope>...]',
      operationId: 'createApiKey',
      description:
        "Create a named API key (the current key's scopes, or fewer with --scope); its secret is printed this once. Only when the user asks for a key.",
    },
    {
      usage: 'notes keys revoke <key_id>',
      operationId: 'revokeApiKey',
      description: 'Revoke an API key by its ID (from keys list): requests with it are refused at once.',
    },
    {
      usage: 'notes search <query> [--limit <n>] [--trashed] [--collection <collection>] [--cursor <cursor>]',
      operationId: 'searchNotes',
      description:
        "Find notes by words said in them or in their titles, best first, with the matching segments' times and snippets; words in double quotes must be adjacent.",
    },
    {
      usage: 'notes export <folder> [--watch] [--collection <collection>] [--with-insights]',
      operationId: 'getNote',
      description:
        'Write each transcribed note as a Markdown file (front matter, Insights that exist, transcript) into a folder such as an Obsidian vault; files the user edited are never overwritten; --watch keeps it in step.',
    },
  ],
  exitCodes: [
    { code: 0, meaning: 'Success.' },
    { code: 1, meaning: 'Unexpected error.' },
    { code: 2, meaning: 'Usage error (bad arguments, missing or wrong --confirm); nothing was sent.' },
    { code: 3, meaning: 'Authentication: NOTES_API_KEY missing, or rejected (401).' },
    { code: 4, meaning: 'Not found (404).' },
    {
      code: 5,
      meaning: 'Conflict (409), a note changed since --if-match (412), or a job that ended failed.',
    },
    { code: 6, meaning: 'Request rejected (400, 413, 415, 422, other 4xx).' },
    { code: 7, meaning: '--wait deadline reached; the job goes on in the background.' },
    { code: 8, meaning: 'Service unavailable (429, 5xx or network error after retries).' },
  ],
};

/** The rules every agent follows (spec: "Rules for agents and tool executors"), for skill.json. */
const RULES = {
  polling: {
    rule: 'A 202 response is never a completed result: it is the job status. Poll the matching read until 200 or a terminal error.',
    keep_note_id_outside_model: true,
    min_interval_seconds: 2,
    poll_with: {
      submitTranscription: 'getTranscription',
      generateInsights: 'getInsights',
      generateNoteArtifact: 'getNoteArtifact',
    },
    stop_on: ['200 (the result)', '409 with status "failed" (the job failed)', '404', 'any other 4xx'],
    deadline: 'bounded: on reaching it, report the note_id and last status; the job keeps running',
    backoff: 'exponential with jitter on 429, 5xx and network errors',
    cli: '--wait polls this way; exit code 7 when the deadline is reached',
    mcp: 'a tool result that is a job status (its text begins "NOT A RESULT YET") is not a result: poll the get tool it names, with the arguments it gives, at least 2 s apart',
  },
  confirmation: {
    operation_ids: ['deleteTranscription', 'deleteNote'],
    rule: 'Get explicit user confirmation immediately before each deletion; an earlier general request is not approval.',
    cli: 'deletion commands need --confirm <note_id> repeating the exact note ID (exit code 2 otherwise)',
    mcp: 'the deletion tools need confirm_note_id repeating note_id exactly, filled in only after the user confirmed that note; otherwise nothing is deleted',
  },
  no_lost_updates: {
    operation_id: 'updateNote',
    rule: 'Send the ETag of the note as you read it (getNote, updateNote) as If-Match; a 412 means someone changed it meanwhile and nothing was changed: read it again, show the user what changed if it matters, reapply the change, retry with the new ETag. Never retry a 412 blindly without If-Match.',
    cli: 'notes notes get prints the ETag on stderr; rename, trash and restore take --if-match <etag> (exit code 5 on 412)',
    mcp: 'getNote and updateNote results carry the etag; pass it as if_match to updateNote (Error 412 when the note changed)',
  },
  supporting_note_ids: {
    operation_id: 'askWorkspace',
    rule: 'Keep the supporting note IDs (note_ids) returned by Ask in the final answer shown to the user; an empty list means no note covers the question.',
  },
  key_hygiene: {
    key_env: 'NOTES_API_KEY',
    rules: [
      'Read the key from the environment (NOTES_API_KEY) or a secret manager.',
      'Never put the key in prompts, logs, traces, repositories or client bundles.',
      'Do not log bearer headers, raw audio, transcripts or artifacts.',
      'Rotate (revoke and replace) a key that appeared in any of those places.',
      'MCP takes OAuth access tokens, never API keys: do not put a key in an MCP client configuration; on the local runtime the key is typed only into the sign-in page in the browser.',
    ],
  },
};

/** Everything the published files are made from. */
export interface DocsSources {
  /** openapi.yaml, as text. */
  openapi: string;
  /** skills/notes/SKILL.md */
  skill: string;
  /** The skill's references by path under skills/notes/, e.g. `references/rest.md`. */
  references: Record<string, string>;
  readme: string;
  /** The published guides, docs/*.md by file name (not those of UNPUBLISHED_DOCS). */
  guides: Record<string, string>;
  /** The MCP server's OAuth scopes and their descriptions. */
  mcpScopes: Record<string, string>;
  /** The scopes a client gets when it asks for none. */
  mcpDefaultScopes: string[];
  /** The MCP tools, in the server's order. */
  mcpTools: McpToolDoc[];
}

/** What the docs say about one MCP tool (src/mcp/tools.ts). */
export interface McpToolDoc {
  name: string;
  title: string;
  /** Every scope the access token must carry to call it. */
  scopes: string[];
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** Whether it takes `confirm_note_id` (the deletions: it must repeat `note_id`). */
  confirmNoteId: boolean;
}

/** The MCP tools as the docs describe them, from the server's own definitions. */
export function mcpToolDocs(): McpToolDoc[] {
  return MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    scopes: [...tool.scopes],
    annotations: {
      readOnlyHint: tool.annotations.readOnlyHint === true,
      destructiveHint: tool.annotations.destructiveHint === true,
      idempotentHint: tool.annotations.idempotentHint === true,
      openWorldHint: tool.annotations.openWorldHint === true,
    },
    confirmNoteId: Object.hasOwn(tool.inputSchema.shape, 'confirm_note_id'),
  }));
}

export function readDocsSources(root: string = REPO_ROOT): DocsSources {
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  return {
    openapi: read('openapi.yaml'),
    skill: read(`${SKILL_DIR}/SKILL.md`),
    references: Object.fromEntries(SKILL_REFERENCES.map((path) => [path, read(`${SKILL_DIR}/${path}`)])),
    readme: read('README.md'),
    guides: Object.fromEntries(
      readdirSync(join(root, 'docs'), { withFileTypes: true })
        .filter(
          (entry) => entry.isFile() && entry.name.endsWith('.md') && !UNPUBLISHED_DOCS.includes(entry.name),
        )
        .map((entry) => [entry.name, read(`docs/${entry.name}`)]),
    ),
    mcpScopes: { ...mcpScopes },
    mcpDefaultScopes: [...DEFAULT_SCOPES],
    mcpTools: mcpToolDocs(),
  };
}

/**
 * The generated files, by repository-relative path: everything under docs/public/, the skill
 * references whose generated blocks were refreshed, and the MCP output schemas. Pure: same sources,
 * same bytes.
 */
export function renderDocs(sources: DocsSources): Record<string, string> {
  const contract = contractOf(sources.openapi);
  const skill = parseSkill(sources.skill);
  const problems = validateSkillFrontMatter(skill.frontMatter);
  if (problems.length > 0) throw new Error(`skills/notes/SKILL.md front matter: ${problems.join('; ')}`);

  const references = {
    ...sources.references,
    'references/rest.md': replaceGenerated(
      requireSource(sources.references, 'references/rest.md'),
      'operations',
      operationsTable(contract.operations),
    ),
    'references/cli.md': replaceGenerated(
      replaceGenerated(
        replaceGenerated(requireSource(sources.references, 'references/cli.md'), 'cli-env', cliEnvTable()),
        'cli-commands',
        cliCommandsTable(),
      ),
      'cli-exit-codes',
      cliExitCodesTable(),
    ),
    'references/mcp.md': replaceGenerated(
      replaceGenerated(
        requireSource(sources.references, 'references/mcp.md'),
        'mcp-scopes',
        mcpScopesTable(sources.mcpScopes, sources.mcpDefaultScopes, sources.mcpTools),
      ),
      'mcp-tools',
      mcpToolsTable(sources.mcpTools),
    ),
  };

  const files: Record<string, string> = {};
  for (const path of SKILL_REFERENCES) {
    const text = requireSource(references, path);
    files[`${SKILL_DIR}/${path}`] = text;
    files[`${PUBLIC_DIR}/${path}`] = text;
  }
  files[`${PUBLIC_DIR}/skill.md`] = sources.skill;
  files[`${PUBLIC_DIR}/skill.json`] = formatJson(skillJson(skill.frontMatter, contract, sources));
  files[`${PUBLIC_DIR}/llms.txt`] = llmsTxt(contract);
  files[`${PUBLIC_DIR}/llms-full.txt`] = llmsFullTxt(sources, references, contract);
  files[MCP_OUTPUT_SCHEMAS] = formatJson(mcpOutputSchemas(sources.openapi));
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}

// ---------------------------------------------------------------------------------------------------
// The contract

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  parameters: Array<{ name: string; in: string; required: boolean; description: string }>;
  requestBody: string | null;
  responses: Array<{ status: string; description: string }>;
}

export interface Contract {
  title: string;
  version: string;
  summary: string;
  description: string;
  operations: Operation[];
}

type Json = Record<string, unknown>;

export function contractOf(openapi: string): Contract {
  const document = parse(openapi) as Json;
  const info = document.info as Json;
  const deref = (node: unknown): Json => {
    const ref = (node as Json | undefined)?.$ref;
    if (typeof ref !== 'string') return (node ?? {}) as Json;
    return deref(
      ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((at, key) => (at as Json)[key], document),
    );
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const [method, raw] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      const operation = raw as Json;
      const body = operation.requestBody ? deref(operation.requestBody) : null;
      const bodyContent = body ? Object.entries(body.content as Record<string, Json>) : [];
      operations.push({
        operationId: String(operation.operationId),
        method: method.toUpperCase(),
        path,
        summary: String(operation.summary ?? ''),
        description: String(operation.description ?? '').trim(),
        parameters: [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])].map((raw) => {
          const parameter = deref(raw);
          return {
            name: String(parameter.name),
            in: String(parameter.in),
            required: parameter.required === true,
            description: firstLine(String(parameter.description ?? '')),
          };
        }),
        requestBody:
          body === null
            ? null
            : `${body.required === true ? 'required' : 'optional'}; ${bodyContent
                .map(([type, media]) => `${type} (${schemaName(media.schema)})`)
                .join(', ')}`,
        responses: Object.entries(operation.responses as Record<string, unknown>).map(([status, raw]) => ({
          status,
          description: firstLine(String(deref(raw).description ?? '')),
        })),
      });
    }
  }
  return {
    title: String(info.title),
    version: String(info.version),
    summary: String(info.summary ?? ''),
    description: String(info.description ?? '').trim(),
    operations,
  };
}

function schemaName(schema: unknown): string {
  const ref = (schema as Json | undefined)?.$ref;
  return typeof ref === 'string' ? (ref.split('/').pop() ?? ref) : 'inline schema';
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split(/\n\s*\n/)[0]
      ?.replace(/\s*\n\s*/g, ' ') ?? ''
  );
}

// ---------------------------------------------------------------------------------------------------
// The skill

const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const FRONT_MATTER_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];

export function parseSkill(text: string): { frontMatter: Json; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match?.[1]) throw new Error('skills/notes/SKILL.md does not start with a --- front matter block');
  const frontMatter = parse(match[1]) as unknown;
  if (!frontMatter || typeof frontMatter !== 'object' || Array.isArray(frontMatter)) {
    throw new Error('skills/notes/SKILL.md front matter is not a YAML mapping');
  }
  return { frontMatter: frontMatter as Json, body: text.slice(match[0].length) };
}

/** Agent Skills format rules for the front matter; returns what is wrong (empty when valid). */
export function validateSkillFrontMatter(frontMatter: Json, directoryName = 'notes'): string[] {
  const problems: string[] = [];
  const { name, description, compatibility, metadata } = frontMatter;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.length > 64) {
    problems.push('name must be 1-64 lowercase letters, digits and single hyphens');
  } else if (name !== directoryName) {
    problems.push(`name "${name}" must match the directory name "${directoryName}"`);
  }
  if (typeof description !== 'string' || description.trim() === '' || description.length > 1024) {
    problems.push('description must be a non-empty string of at most 1024 characters');
  }
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility.length > 500)) {
    problems.push('compatibility must be a string of at most 500 characters');
  }
  if (
    metadata !== undefined &&
    (typeof metadata !== 'object' ||
      metadata === null ||
      Object.values(metadata).some((value) => typeof value !== 'string'))
  ) {
    problems.push('metadata must map strings to strings');
  }
  for (const key of Object.keys(frontMatter)) {
    if (!FRONT_MATTER_KEYS.includes(key)) problems.push(`unknown front matter field "${key}"`);
  }
  return problems;
}

function skillJson(frontMatter: Json, contract: Contract, sources: DocsSources): unknown {
  const metadata = (frontMatter.metadata ?? {}) as Record<string, string>;
  const contractIds = new Set(contract.operations.map((operation) => operation.operationId));
  const toolNames = new Set(sources.mcpTools.map((tool) => tool.name));
  return {
    name: frontMatter.name,
    description: String(frontMatter.description).trim(),
    version: metadata.version ?? null,
    api_version: contract.version,
    license: frontMatter.license ?? null,
    paths_are_relative_to:
      'the documentation root: the service itself locally (NOTES_BASE_URL), the docs site on AWS',
    interface_choice: {
      mcp: 'interactive agents: an agent session with tools in an MCP client (signs in with OAuth 2.1; cannot upload audio)',
      cli: 'local files and automation',
      rest: 'application integrations',
    },
    interfaces: {
      rest: {
        status: 'available',
        openapi: '/openapi.yaml',
        base_url_env: 'NOTES_BASE_URL',
        default_base_url: DEFAULT_BASE_URL,
        auth: {
          type: 'bearer',
          header: 'Authorization: Bearer <api key>',
          key_prefix: 'svc_sk_',
          key_env: 'NOTES_API_KEY',
        },
        operation_ids: contract.operations.map((operation) => operation.operationId),
        operations: contract.operations.map((operation) => ({
          operation_id: operation.operationId,
          method: operation.method,
          path: operation.path,
          summary: operation.summary,
        })),
      },
      cli: {
        status: 'available',
        package_dir: CLI.packageDir,
        bin: CLI.bin,
        requires: CLI.requires,
        output: CLI.output,
        env: CLI.env,
        commands: CLI.commands.map((command) => ({
          usage: command.usage,
          operation_id: command.operationId,
          description: command.description,
          ...(command.confirm ? { requires_confirm: true } : {}),
        })),
        exit_codes: Object.fromEntries(CLI.exitCodes.map(({ code, meaning }) => [String(code), meaning])),
      },
      mcp: {
        status: 'available',
        endpoint: MCP_PATHS.endpoint,
        paths_are_relative_to: 'the service base URL (NOTES_BASE_URL), not the docs site',
        default_url: `${DEFAULT_BASE_URL}${MCP_PATHS.endpoint}`,
        transport: 'Streamable HTTP, stateless: POST only, JSON responses, no session',
        auth: 'oauth2.1',
        oauth: {
          protected_resource_metadata: MCP_PATHS.protectedResourceMetadata,
          authorization_server_metadata: MCP_PATHS.authorizationServerMetadata,
          resource: `<base url>${MCP_PATHS.endpoint}`,
          client_registration:
            'dynamic (RFC 7591), public clients only (no secret); or a Client ID Metadata Document URL',
          pkce: 'S256',
          default_scopes: sources.mcpDefaultScopes,
          step_up:
            'a tool needing a scope the token lacks answers HTTP 403 insufficient_scope with the scope to ask for; the client authorizes again (a refresh of that grant answers invalid_grant)',
          sign_in: {
            local: 'the account owner pastes one of the account API keys into the sign-in page (browser)',
            aws: 'Cognito managed login',
          },
          api_keys_accepted: false,
        },
        scopes: Object.keys(sources.mcpScopes),
        scope_descriptions: sources.mcpScopes,
        tool_names: sources.mcpTools.map((tool) => tool.name),
        tools: sources.mcpTools.map((tool) => ({
          name: tool.name,
          title: tool.title,
          scopes: tool.scopes,
          annotations: tool.annotations,
          ...(tool.confirmNoteId ? { requires_confirm_note_id: true } : {}),
        })),
        not_tools: Object.fromEntries(
          [...contractIds]
            .filter((id) => !toolNames.has(id))
            .map((id) => [
              id,
              id === 'submitTranscription'
                ? 'audio is uploaded with the CLI (notes transcribe) or REST, not through MCP'
                : firstPartyOnlyOperations.has(id as OperationId)
                  ? firstPartyReason(id)
                  : 'not exposed',
            ]),
        ),
      },
    },
    rules: RULES,
    entry_points: {
      llms_txt: '/llms.txt',
      llms_full_txt: '/llms-full.txt',
      skill_md: '/skill.md',
      skill_json: '/skill.json',
      openapi: '/openapi.yaml',
      references: SKILL_REFERENCES.map((path) => `/${path}`),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Generated blocks of the skill references

function replaceGenerated(text: string, name: string, content: string): string {
  const pattern = new RegExp(`(<!-- generated:${name}[^>]*-->\\n)[\\s\\S]*?(<!-- /generated:${name} -->)`);
  if (!pattern.test(text)) throw new Error(`no <!-- generated:${name} --> block to fill`);
  return text.replace(pattern, (_all, open: string, close: string) => `${open}${content}${close}`);
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |\n`;
  return line(header) + line(header.map(() => '---')) + rows.map(line).join('');
}

function operationsTable(operations: Operation[]): string {
  return table(
    ['operationId', 'Method and path', 'Summary', 'Responses'],
    operations.map((operation) => [
      `\`${operation.operationId}\``,
      `\`${operation.method} ${operation.path}\``,
      operation.summary,
      operation.responses.map((response) => response.status).join(', '),
    ]),
  );
}

function cliEnvTable(): string {
  return table(
    ['Variable', 'Default', 'Meaning'],
    CLI.env.map((variable) => [
      `\`${variable.name}\``,
      variable.default === null ? '(required)' : `\`${variable.default}\``,
      variable.description,
    ]),
  );
}

function cliCommandsTable(): string {
  return table(
    ['Command', 'REST operation', 'What it does'],
    CLI.commands.map((command) => [
      `\`${command.usage}\``,
      `\`${command.operationId}\``,
      command.description,
    ]),
  );
}

function cliExitCodesTable(): string {
  return table(
    ['Code', 'Meaning'],
    CLI.exitCodes.map(({ code, meaning }) => [String(code), meaning]),
  );
}

function mcpScopesTable(
  scopes: Record<string, string>,
  defaults: readonly string[],
  tools: readonly McpToolDoc[],
): string {
  return table(
    ['Scope', 'Allows', 'Tools that need it', 'Default'],
    Object.entries(scopes).map(([scope, description]) => [
      `\`${scope}\``,
      description,
      tools
        .filter((tool) => tool.scopes.includes(scope))
        .map((tool) => `\`${tool.name}\``)
        .join(', '),
      defaults.includes(scope) ? 'yes' : 'no: asked for when needed (step-up)',
    ]),
  );
}

function mcpToolsTable(tools: readonly McpToolDoc[]): string {
  const yesNo = (value: boolean) => (value ? 'yes' : 'no');
  return table(
    ['Tool', 'What it does', 'Scopes', 'Read-only', 'Destructive', 'Idempotent', 'Open world'],
    tools.map((tool) => [
      `\`${tool.name}\`${tool.confirmNoteId ? ' (needs `confirm_note_id`)' : ''}`,
      tool.title,
      tool.scopes.map((scope) => `\`${scope}\``).join(' + '),
      yesNo(tool.annotations.readOnlyHint),
      yesNo(tool.annotations.destructiveHint),
      yesNo(tool.annotations.idempotentHint),
      yesNo(tool.annotations.openWorldHint),
    ]),
  );
}

// ---------------------------------------------------------------------------------------------------
// llms.txt and llms-full.txt

/**
 * The llms.txt index. Links are relative to the file itself (`skill.md`, not `/skill.md` or an
 * absolute URL): they resolve against wherever llms.txt was fetched from, so the same file works on
 * the local runtime, on CloudFront, under a path prefix and when read from docs/public/ on disk.
 */
function llmsTxt(contract: Contract): string {
  const link = (name: string, url: string, description: string) => `- [${name}](${url}): ${description}\n`;
  return [
    `# ${contract.title.replace(/ API$/, '')}\n`,
    `> Audio in, notes out: upload a recording, get a transcript with speaker labels, structured Insights and artifacts (epiphany, deep research, podcast), and ask questions across your processed notes with the supporting note IDs. Interfaces: REST (OpenAPI), the \`notes\` CLI, and an MCP server for interactive agents (\`/mcp\`, OAuth 2.1).\n`,
    [
      'Links are relative to this file: resolve them against the URL you fetched it from (the local runtime serves these files at its base URL, e.g. http://127.0.0.1:8787/llms.txt; the AWS stack at its docs site).',
      'REST and the CLI authenticate with `Authorization: Bearer <key>`, a key beginning with `svc_sk_` read from `NOTES_API_KEY`, never pasted into prompts or logs. MCP clients sign in with OAuth 2.1 instead (discovery starts at `/.well-known/oauth-protected-resource/mcp` on the service): the MCP server never takes API keys, and REST never takes MCP access tokens.',
      'A `202` response (over MCP: a tool result that begins "NOT A RESULT YET") is never a result: keep the note_id, poll the matching read at least 2 s apart until `200` or a terminal error, with a deadline.',
      'Get explicit user confirmation immediately before `deleteTranscription` or `deleteNote` (over MCP, then repeat the note ID in `confirm_note_id`). Keep the supporting note IDs returned by Ask in the answer shown to the user.\n',
    ].join('\n'),
    '## Docs\n',
    link(
      'llms-full.txt',
      'llms-full.txt',
      "Everything in one text: the Agent Skill and its references (CLI, REST, MCP, polling), the README's introduction, features, quick start and ways to run it, the guides (self-hosting and configuration, the container, the web app, the REST walk-through, MCP, the CLI, API and MCP/OAuth decisions, transcripts, Ask and artifacts, deploying to AWS, the threat model, benchmarks) and a summary of every REST operation.",
    ) +
      link(
        'openapi.yaml',
        'openapi.yaml',
        'The REST contract (OpenAPI 3.1); operationIds are stable tool names.',
      ),
    '## Agent Skill\n',
    link(
      'skill.md',
      'skill.md',
      'The Agent Skill (SKILL.md): when to use MCP, the CLI or REST, and the rules for polling, deletion, Ask and API keys.',
    ) +
      link(
        'skill.json',
        'skill.json',
        'The same, machine-readable: interfaces, operation IDs, CLI commands, environment and exit codes, the MCP endpoint, OAuth metadata, scopes and tools, rules and entry points.',
      ) +
      link(
        'references/cli.md',
        'references/cli.md',
        'The `notes` CLI: every command, environment variables, exit codes.',
      ) +
      link(
        'references/rest.md',
        'references/rest.md',
        'REST: authentication, the operations, the upload protocol, Ask, status codes.',
      ) +
      link(
        'references/mcp.md',
        'references/mcp.md',
        'MCP: connecting an MCP client (locally http://127.0.0.1:8787/mcp), the OAuth sign-in, scopes and step-up, every tool with its scopes and annotations, the confirmation rule for deletions.',
      ) +
      link(
        'references/polling.md',
        'references/polling.md',
        'Asynchronous jobs: why 202 is not a result and how to poll (intervals, deadline, backoff).',
      ),
    '## Optional\n',
    contract.operations
      .map((operation) =>
        link(
          operation.operationId,
          'openapi.yaml',
          `\`${operation.method} ${operation.path}\`: ${operation.summary}.`,
        ),
      )
      .join(''),
  ].join('\n');
}

function llmsFullTxt(sources: DocsSources, references: Record<string, string>, contract: Contract): string {
  const parts: Array<[string, string]> = [
    ['skills/notes/SKILL.md: the Agent Skill (published as skill.md)', sources.skill],
    ...SKILL_REFERENCES.map((path): [string, string] => [
      `skills/notes/${path}: skill reference (published as ${path})`,
      requireSource(references, path),
    ]),
    ['README.md: the introduction, features, quick start and ways to run it', readmeSections(sources.readme)],
    ...orderedGuides(sources.guides).map(([name, text]): [string, string] => [`docs/${name}`, text]),
    ['openapi.yaml: summary of the REST contract (published as openapi.yaml)', operationSummary(contract)],
  ];
  const rule = '='.repeat(100);
  const contents = parts.map(([title], index) => `${index + 1}. ${title}`).join('\n');
  return `${[
    `# ${contract.title.replace(/ API$/, '')}: full documentation\n\n> ${contract.summary}\n\nEvery guide in one text, generated from the repository by \`npm run docs:build\`. Interfaces: REST, the \`notes\` CLI and the MCP server (\`/mcp\`, OAuth 2.1; see references/mcp.md). Parts:\n\n${contents}`,
    ...parts.map(([title, text]) => `${rule}\n${title}\n${rule}\n\n${text.trim()}`),
  ].join('\n\n\n')}\n`;
}

function orderedGuides(guides: Record<string, string>): Array<[string, string]> {
  const rank = (name: string) => {
    const index = GUIDE_ORDER.indexOf(name);
    return index === -1 ? GUIDE_ORDER.length : index;
  };
  return Object.entries(guides).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The README's introduction and the `## ` sections named in README_SECTIONS, in README order. */
function readmeSections(readme: string): string {
  const sections: Array<{ title: string | null; lines: string[] }> = [{ title: null, lines: [] }];
  let fenced = false;
  for (const line of readme.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^## (.+)$/.exec(line);
    if (heading?.[1]) sections.push({ title: heading[1].trim(), lines: [] });
    sections.at(-1)?.lines.push(line);
  }
  const missing = README_SECTIONS.filter((title) => !sections.some((section) => section.title === title));
  if (missing.length > 0) {
    throw new Error(
      `README.md has no section ${missing.join(', ')}: update README_SECTIONS in scripts/build-docs.ts`,
    );
  }
  return sections
    .filter((section) => section.title === null || README_SECTIONS.includes(section.title))
    .map((section) => section.lines.join('\n').trim())
    .join('\n\n');
}

function operationSummary(contract: Contract): string {
  const operations = contract.operations.map((operation) => {
    const lines = [
      `### ${operation.operationId}: ${operation.method} ${operation.path}`,
      '',
      operation.summary,
      '',
    ];
    lines.push(operation.description, '');
    if (operation.parameters.length > 0) {
      lines.push('Parameters:');
      for (const parameter of operation.parameters) {
        lines.push(
          `- ${parameter.name} (${parameter.in}${parameter.required ? ', required' : ''}): ${parameter.description}`,
        );
      }
      lines.push('');
    }
    if (operation.requestBody) lines.push(`Request body: ${operation.requestBody}`, '');
    lines.push('Responses:');
    for (const response of operation.responses) lines.push(`- ${response.status}: ${response.description}`);
    return lines.join('\n');
  });
  return [
    `# ${contract.title} ${contract.version}`,
    contract.summary,
    contract.description,
    '## Operations',
    'Schemas, examples and every detail are in openapi.yaml.',
    ...operations,
  ].join('\n\n');
}

function requireSource(files: Record<string, string>, path: string): string {
  const text = files[path];
  if (text === undefined) throw new Error(`missing source ${path}`);
  return text;
}

// ---------------------------------------------------------------------------------------------------
// JSON as Biome formats it (biome.json checks **/*.json, docs/public/skill.json included)

const LINE_WIDTH = 110;

/**
 * JSON.stringify with 2-space indentation, except that an array of scalars (or of such arrays) that
 * fits on its line is written on one line, as Biome's formatter does. Non-empty objects always break.
 */
export function formatJson(value: unknown): string {
  return `${renderJson(value, '', '', '')}\n`;
}

function renderJson(value: unknown, indent: string, prefix: string, suffix: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${prefix}[]${suffix}`;
    const flat = flatJson(value);
    if (flat !== null && indent.length + prefix.length + flat.length + suffix.length <= LINE_WIDTH) {
      return `${prefix}${flat}${suffix}`;
    }
    const inner = `${indent}  `;
    const items = value.map(
      (item, index) => inner + renderJson(item, inner, '', index < value.length - 1 ? ',' : ''),
    );
    return `${prefix}[\n${items.join('\n')}\n${indent}]${suffix}`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return `${prefix}{}${suffix}`;
    const inner = `${indent}  `;
    const items = entries.map(
      ([key, item], index) =>
        inner + renderJson(item, inner, `${JSON.stringify(key)}: `, index < entries.length - 1 ? ',' : ''),
    );
    return `${prefix}{\n${items.join('\n')}\n${indent}}${suffix}`;
  }
  return `${prefix}${JSON.stringify(value)}${suffix}`;
}

/** One-line form of an array of scalars, empty containers or such arrays; null when it must break. */
function flatJson(value: unknown): string | null {
  if (Array.isArray(value)) {
    const items = value.map(flatJson);
    return items.every((item) => item !== null) ? `[${items.join(', ')}]` : null;
  }
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0 ? '{}' : null;
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------------
// Writing

/** Writes the files and removes anything else under docs/public/; returns the paths written. */
export function writeDocs(files: Record<string, string>, root: string = REPO_ROOT): string[] {
  const publicDir = join(root, PUBLIC_DIR);
  if (existsSync(publicDir)) {
    for (const path of listFiles(publicDir)) {
      const repoPath = relative(root, path).split(sep).join('/');
      if (!(repoPath in files)) rmSync(path);
    }
  }
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return Object.keys(files);
}

/** Every file under a directory (absolute paths, sorted). */
export function listFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const written = writeDocs(renderDocs(readDocsSources()));
  console.error(
    `docs:build wrote ${written.length} files:\n${written.map((path) => `  ${path}`).join('\n')}`,
  );
}

/** Why a first-party operation has no MCP tool, in skill.json's not_tools. */
function firstPartyReason(operationId: string): string {
  if (operationId.includes('Session'))
    return 'sessions are seen and ended with an API key (CLI: notes sessions) or in the web app, never by an MCP client';
  if (operationId.includes('Voice'))
    return "voice profiles are biometric data, kept and reviewed only by the account's owner with an API key (CLI: notes voices) or in the web app, never by an MCP client";
  return 'API keys are managed with an API key (CLI: notes keys) or in the web app, never by an MCP client';
}
