import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  contractOf,
  formatJson,
  listFiles,
  MCP_PATHS,
  PUBLIC_DIR,
  parseSkill,
  REPO_ROOT,
  readDocsSources,
  renderDocs,
  SKILL_DIR,
  validateSkillFrontMatter,
} from '../../scripts/build-docs.ts';
import { mcpScopes } from '../../src/domain/scopes.ts';
import { MCP_TOOL_NAMES, MCP_TOOLS } from '../../src/mcp/tools.ts';
import { DEFAULT_SCOPES } from '../../src/oauth/scopes.ts';
import { publicRoutes } from '../../src/routes.ts';

const REBUILD = 'run `npm run docs:build` and commit the result';
const sources = readDocsSources();
const generated = renderDocs(sources);
const contract = contractOf(sources.openapi);
const contractIds = contract.operations.map((operation) => operation.operationId);
const onDisk = (path: string) =>
  existsSync(join(REPO_ROOT, path)) ? readFileSync(join(REPO_ROOT, path), 'utf8') : null;

interface SkillJson {
  name: string;
  description: string;
  interfaces: {
    rest: { openapi: string; operation_ids: string[]; auth: { type: string; key_prefix: string } };
    cli: {
      bin: string;
      commands: Array<{ usage: string; operation_id: string }>;
      exit_codes: Record<string, string>;
    };
    mcp: {
      status: string;
      endpoint: string;
      auth: string;
      oauth: {
        protected_resource_metadata: string;
        authorization_server_metadata: string;
        default_scopes: string[];
        api_keys_accepted: boolean;
      };
      scopes: string[];
      tool_names: string[];
      tools: Array<{
        name: string;
        scopes: string[];
        annotations: Record<string, boolean>;
        requires_confirm_note_id?: true;
      }>;
      not_tools: Record<string, string>;
    };
  };
  rules: {
    polling: { poll_with: Record<string, string>; min_interval_seconds: number };
    confirmation: { operation_ids: string[] };
    supporting_note_ids: { operation_id: string };
    key_hygiene: { key_env: string };
  };
  entry_points: Record<string, string | string[]>;
}
const skillJson = JSON.parse(generated[`${PUBLIC_DIR}/skill.json`] ?? '{}') as SkillJson;

describe('the published documentation files', () => {
  it('are exactly what `npm run docs:build` generates from the contract, the skill and the guides', () => {
    const stale = Object.entries(generated)
      .filter(([path, content]) => onDisk(path) !== content)
      .map(([path]) => path);
    expect(stale, `These files are out of date: ${REBUILD}`).toEqual([]);
  });

  it('leave nothing in docs/public/ that the generator does not produce', () => {
    const extra = listFiles(join(REPO_ROOT, PUBLIC_DIR))
      .map((path) => relative(REPO_ROOT, path).split(sep).join('/'))
      .filter((path) => !(path in generated));
    expect(extra, `docs/public/ holds files the generator no longer writes: ${REBUILD}`).toEqual([]);
  });

  it('do not depend on when they were built: the same sources give the same bytes', () => {
    expect(renderDocs(readDocsSources())).toEqual(generated);
    expect(Object.values(generated).join('\n')).not.toMatch(/\b20\d\d-\d\d-\d\dT\d\d:\d\d/);
  });

  it('publish the skill and its references unchanged, generated tables included', () => {
    expect(generated[`${PUBLIC_DIR}/skill.md`]).toBe(onDisk(`${SKILL_DIR}/SKILL.md`));
    for (const name of ['cli.md', 'rest.md', 'mcp.md', 'polling.md']) {
      expect(generated[`${PUBLIC_DIR}/references/${name}`]).toBe(
        generated[`${SKILL_DIR}/references/${name}`],
      );
    }
  });
});

describe('skill.json', () => {
  it("lists the contract's operationIds, in contract order", () => {
    expect(skillJson.interfaces.rest.operation_ids).toEqual(contractIds);
    expect(skillJson.interfaces.rest.openapi).toBe('/openapi.yaml');
    expect(skillJson.interfaces.rest.auth).toMatchObject({ type: 'bearer', key_prefix: 'svc_sk_' });
  });

  it('names only operationIds of the contract in CLI commands and rules', () => {
    const named = [
      ...skillJson.interfaces.cli.commands.map((command) => command.operation_id),
      ...Object.entries(skillJson.rules.polling.poll_with).flat(),
      ...skillJson.rules.confirmation.operation_ids,
      skillJson.rules.supporting_note_ids.operation_id,
    ];
    expect(named.filter((id) => !contractIds.includes(id))).toEqual([]);
    expect(skillJson.rules.confirmation.operation_ids.sort()).toEqual(['deleteNote', 'deleteTranscription']);
    expect(skillJson.rules.polling.min_interval_seconds).toBeGreaterThanOrEqual(2);
  });

  it('marks MCP as available at /mcp with OAuth 2.1, with the scopes of src/domain/scopes.ts', () => {
    const mcp = skillJson.interfaces.mcp;
    expect(mcp.status).toBe('available');
    expect(mcp.endpoint).toBe('/mcp');
    expect(mcp.auth).toBe('oauth2.1');
    expect(mcp.oauth.api_keys_accepted).toBe(false);
    expect(mcp.scopes).toEqual(Object.keys(mcpScopes));
    expect(mcp.oauth.default_scopes).toEqual([...DEFAULT_SCOPES]);
  });

  it('points at the MCP endpoint and OAuth metadata the service actually serves', () => {
    const served = Object.values(publicRoutes).flatMap((route) => route.endpoints.map(({ path }) => path));
    const { oauth, endpoint } = skillJson.interfaces.mcp;
    for (const path of [
      endpoint,
      oauth.protected_resource_metadata,
      oauth.authorization_server_metadata,
      ...Object.values(MCP_PATHS),
    ]) {
      expect(served).toContain(path);
    }
  });

  it('lists the tools of src/mcp/tools.ts, with their scopes and annotations, and no others', () => {
    const mcp = skillJson.interfaces.mcp;
    expect(mcp.tool_names).toEqual([...MCP_TOOL_NAMES]);
    expect(mcp.tools.map((tool) => tool.name)).toEqual([...MCP_TOOL_NAMES]);
    for (const tool of MCP_TOOLS) {
      const listed = mcp.tools.find((entry) => entry.name === tool.name);
      expect(listed?.scopes, tool.name).toEqual([...tool.scopes]);
      expect(listed?.annotations, tool.name).toEqual({
        readOnlyHint: tool.annotations.readOnlyHint === true,
        destructiveHint: tool.annotations.destructiveHint === true,
        idempotentHint: tool.annotations.idempotentHint === true,
        openWorldHint: tool.annotations.openWorldHint === true,
      });
      expect(
        listed?.scopes.every((scope) => scope in mcpScopes),
        tool.name,
      ).toBe(true);
    }
    // Tools are operationIds; left out: the upload, which MCP does not do, and API key, session and
    // voice profile management, which an agent must not do (it could mint itself a full-access key,
    // sign the owner out, or keep someone's voice print).
    expect(mcp.tool_names.filter((name) => !contractIds.includes(name))).toEqual([]);
    expect(Object.keys(mcp.not_tools).sort()).toEqual(
      [
        'createApiKey',
        'endOtherSessions',
        'endSession',
        'listApiKeys',
        'listSessions',
        'revokeApiKey',
        'submitTranscription',
        'listVoiceProfiles',
        'updateVoiceProfileSettings',
        'createVoiceProfile',
        'updateVoiceProfile',
        'deleteVoiceProfile',
        'reviewVoiceMatch',
      ].sort(),
    );
  });

  it('makes the confirmed deletions destructive notes:delete tools, each needing confirm_note_id', () => {
    const tools = skillJson.interfaces.mcp.tools;
    const confirmed = tools.filter((tool) => tool.requires_confirm_note_id).map((tool) => tool.name);
    expect(confirmed.sort()).toEqual([...skillJson.rules.confirmation.operation_ids].sort());
    const deletions = tools.filter((tool) => tool.scopes.includes('notes:delete')).map((tool) => tool.name);
    expect(deletions.sort()).toEqual(confirmed.sort());
    for (const name of confirmed)
      expect(tools.find((tool) => tool.name === name)?.annotations.destructiveHint, name).toBe(true);
  });

  it('requires --confirm with the note ID on both deletion commands', () => {
    const deletions = skillJson.interfaces.cli.commands.filter((command) =>
      ['deleteNote', 'deleteTranscription'].includes(command.operation_id),
    );
    expect(deletions.map((command) => command.usage)).toEqual([
      'notes notes delete <id> --confirm <id>',
      'notes transcription delete <id> --confirm <id>',
    ]);
  });

  it('documents the exit codes the CLI defines', async () => {
    const cliExitCodes = join(REPO_ROOT, 'cli', 'src', 'exit-codes.mjs');
    const { EXIT } = (await import(pathToFileURL(cliExitCodes).href)) as { EXIT: Record<string, number> };
    expect(Object.keys(skillJson.interfaces.cli.exit_codes).map(Number).sort()).toEqual(
      Object.values(EXIT).sort(),
    );
  });

  it('points its entry points at published files', () => {
    const published = (path: string) => path === '/openapi.yaml' || `${PUBLIC_DIR}${path}` in generated;
    const paths = Object.values(skillJson.entry_points).flat();
    expect(paths.filter((path) => !published(path))).toEqual([]);
    expect(skillJson.entry_points).toMatchObject({
      llms_txt: '/llms.txt',
      llms_full_txt: '/llms-full.txt',
      skill_md: '/skill.md',
      openapi: '/openapi.yaml',
    });
  });

  it('is written as Biome formats JSON, so the lint passes on the generated file', () => {
    const biome = join(REPO_ROOT, 'node_modules', '.bin', 'biome');
    const formatted = execFileSync(biome, ['format', '--stdin-file-path=skill.json'], {
      input: generated[`${PUBLIC_DIR}/skill.json`],
      encoding: 'utf8',
    });
    expect(generated[`${PUBLIC_DIR}/skill.json`]).toBe(formatted);
    expect(formatJson({ a: ['x', 'y'], b: [{ c: 1 }], d: {} })).toBe(
      '{\n  "a": ["x", "y"],\n  "b": [\n    {\n      "c": 1\n    }\n  ],\n  "d": {}\n}\n',
    );
  });
});

describe('SKILL.md', () => {
  const skill = parseSkill(onDisk(`${SKILL_DIR}/SKILL.md`) ?? '');

  it('has valid Agent Skills front matter: name notes and a description of when to use it', () => {
    expect(validateSkillFrontMatter(skill.frontMatter)).toEqual([]);
    expect(skill.frontMatter.name).toBe('notes');
    const description = String(skill.frontMatter.description);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(description).toMatch(/Use it when/);
    expect(skillJson.description).toBe(description.trim());
  });

  it('says MCP is available at /mcp, recommends it for interactive agents, and links its reference', () => {
    expect(skill.body).toMatch(/MCP is available/);
    expect(skill.body).toMatch(/\| An interactive agent session with tools[^|]*\| MCP /);
    expect(skill.body).toContain('http://127.0.0.1:8787/mcp');
    expect(skill.body).toContain('](references/mcp.md)');
    expect(String(skill.frontMatter.description)).toMatch(/MCP server/);
    for (const text of [sources.skill, generated[`${PUBLIC_DIR}/llms.txt`] ?? '']) {
      expect(text).not.toMatch(/planned|not yet available|once it exists/i);
    }
    expect(generated[`${PUBLIC_DIR}/llms.txt`]).toContain('[references/mcp.md](references/mcp.md)');
  });

  it('states the polling, confirmation, Ask and key rules', () => {
    expect(skill.body).toMatch(/202 is never a result/);
    expect(skill.body).toMatch(/at least 2 seconds/);
    expect(skill.body).toMatch(/immediately before/);
    expect(skill.body).toMatch(/--confirm "\$NOTE"/);
    expect(skill.body).toMatch(/confirm_note_id/);
    expect(skill.body).toMatch(/supporting note IDs/);
    expect(skill.body).toMatch(/NOTES_API_KEY/);
  });

  it('links only to references that exist and are published', () => {
    const links = [...skill.body.matchAll(/\]\((?!https?:)([^)#]+)\)/g)].map((match) => match[1] ?? '');
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !(`${PUBLIC_DIR}/${link}` in generated))).toEqual([]);
  });
});

describe('front matter validation', () => {
  it.each([
    ['an upper-case name', { name: 'Notes', description: 'x' }, /name must be/],
    ['a double hyphen', { name: 'notes--x', description: 'x' }, /name must be/],
    ['a name other than the directory', { name: 'other', description: 'x' }, /must match the directory name/],
    ['an empty description', { name: 'notes', description: '' }, /description must be/],
    ['a description over 1024 characters', { name: 'notes', description: 'x'.repeat(1025) }, /description/],
    [
      'a field the format does not know',
      { name: 'notes', description: 'x', version: '1' },
      /unknown front matter/,
    ],
    [
      'metadata that is not strings',
      { name: 'notes', description: 'x', metadata: { v: 1 } },
      /metadata must/,
    ],
  ])('rejects %s', (_case, frontMatter, problem) => {
    expect(validateSkillFrontMatter(frontMatter).join('; ')).toMatch(problem);
  });
});

describe('llms.txt', () => {
  const text = generated[`${PUBLIC_DIR}/llms.txt`] ?? '';

  it('follows the llms.txt format: a title, a summary, then sections of links', () => {
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((line) => line.startsWith('>'))).toMatch(/^> \S/);
    expect(lines.filter((line) => line.startsWith('## ')).length).toBeGreaterThanOrEqual(2);
    const items = lines.filter((line) => line.startsWith('- '));
    expect(items.filter((line) => !/^- \[[^\]]+\]\([^)]+\): \S/.test(line))).toEqual([]);
  });

  it('links with relative URLs to files that are published, so it works locally and on CloudFront', () => {
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1] ?? '');
    expect(links.filter((link) => /^(\/|[a-z]+:)/i.test(link) || link.includes('{'))).toEqual([]);
    const published = (link: string) => link === 'openapi.yaml' || `${PUBLIC_DIR}/${link}` in generated;
    expect(links.filter((link) => !published(link))).toEqual([]);
    for (const id of contractIds) expect(text).toContain(`[${id}](openapi.yaml)`);
  });

  it('and llms-full.txt holds the skill, its references, the guides and every operation', () => {
    const full = generated[`${PUBLIC_DIR}/llms-full.txt`] ?? '';
    expect(full).toContain(sources.skill.trim());
    for (const name of Object.keys(sources.guides)) expect(full).toContain(`\ndocs/${name}\n`);
    for (const operation of contract.operations) {
      expect(full).toContain(`### ${operation.operationId}: ${operation.method} ${operation.path}`);
    }
    expect(full).toContain('## Walk-through with curl');
    expect(full).not.toContain('## Tests');
  });
});

describe('references/mcp.md', () => {
  const text = generated[`${PUBLIC_DIR}/references/mcp.md`] ?? '';

  it('tabulates every tool of src/mcp/tools.ts with its scopes, and every scope', () => {
    for (const tool of MCP_TOOLS) {
      const row = text.split('\n').find((line) => line.startsWith(`| \`${tool.name}\``));
      expect(row, tool.name).toBeDefined();
      for (const scope of tool.scopes) expect(row, tool.name).toContain(`\`${scope}\``);
    }
    for (const scope of Object.keys(mcpScopes)) expect(text).toContain(`| \`${scope}\` |`);
    expect(text).not.toMatch(/\| `submitTranscription`/);
  });

  it('explains connecting to the local runtime, step-up, confirm_note_id and that 202 is not a result', () => {
    expect(text).toContain('http://127.0.0.1:8787/mcp');
    expect(text).toMatch(/insufficient_scope/);
    expect(text).toMatch(/invalid_grant/);
    expect(text).toMatch(/confirm_note_id/);
    expect(text).toMatch(/immediately before/i);
    expect(text).toMatch(/NOT A RESULT YET/);
    expect(text).toMatch(/at least 2 seconds/);
  });
});

describe('the published skill references', () => {
  it('resolve every relative link between them', () => {
    const broken: string[] = [];
    for (const [path, text] of Object.entries(generated)) {
      if (!path.startsWith(`${PUBLIC_DIR}/references/`)) continue;
      for (const [, link] of text.matchAll(/\]\((?!https?:)([^)#]+)\)/g)) {
        const target = posix.join(posix.dirname(path), link ?? '');
        if (!(target in generated)) broken.push(`${path} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
