import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../lib/paths.ts';
import { type BearerProxy, startBearerProxy } from '../support/bearer-proxy.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { ensureLambdaNode } from '../support/node22.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, a pinned devDependency)
 * against the local runtime's /mcp. It needs Node 22 and sends no Authorization header, so it runs
 * on the registry's Node 22 through a loopback proxy that adds a real access token from the OAuth
 * flow (sign-in and consent). Which scenarios apply is the table in docs/mcp.md: those must pass, and the
 * ones the table calls not applicable must be exactly the rest, each failing as its reason says, so
 * a scenario added by a new version of the suite fails here until it is classified.
 */

const SUITE = join(repositoryRoot, 'node_modules', '@modelcontextprotocol', 'conformance');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface Scenario {
  name: string;
  applies: boolean;
  why: string;
}

/** docs/mcp.md's table between `<!-- conformance-scenarios -->` markers: scenario, applies, why. */
async function scenariosInDocs(): Promise<Scenario[]> {
  const page = await readFile(join(repositoryRoot, 'docs', 'mcp.md'), 'utf8');
  const table = /<!-- conformance-scenarios -->([\s\S]*?)<!-- \/conformance-scenarios -->/.exec(page)?.[1];
  if (!table) throw new Error('docs/mcp.md has no conformance-scenarios table');
  return [...table.matchAll(/^\| `([\w-]+)` \| (yes|no) \| (.+) \|$/gm)].map((row) => ({
    name: row[1] as string,
    applies: row[2] === 'yes',
    why: (row[3] as string).trim(),
  }));
}

/** Runs the suite; resolves with each scenario's checks (from its results folder) and the output. */
async function runSuite(
  node: string,
  url: string,
  selection: string[],
): Promise<{ checks: Map<string, Check[]>; output: string }> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    const bin = (
      JSON.parse(await readFile(join(SUITE, 'package.json'), 'utf8')) as { bin: { conformance: string } }
    ).bin.conformance;
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(node, [join(SUITE, bin), 'server', '--url', url, ...selection, '-o', outputDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      child.on('error', reject);
      // It exits 1 when any scenario fails (every non-applicable one does): the results decide.
      child.on('close', (_code, signal) =>
        signal ? reject(new Error(`The suite was stopped by ${signal}:\n${text}`)) : resolve(text),
      );
    });
    const checks = new Map<string, Check[]>();
    for (const folder of await readdir(outputDir)) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1];
      if (!scenario) continue;
      checks.set(
        scenario,
        JSON.parse(await readFile(join(outputDir, folder, 'checks.json'), 'utf8')) as Check[],
      );
    }
    return { checks, output };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** The checks that did not pass: anything but SUCCESS, apart from the suite's INFO records. */
function notPassed(checks: Check[]): string[] {
  return checks
    .filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO')
    .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ''}`.trim());
}

/**
 * Why a scenario that does not apply fails, when its reason in docs/mcp.md does not say so: the reasons
 * name the suite's reference tool a scenario calls (the server has none of them: an unknown tool is
 * a JSON-RPC error), say `Method not found` for a method the server does not offer, or `SSE` for
 * the streams and sessions a scenario looks for (the suite warns). Undefined when the reason holds.
 */
function unexplainedFailure(scenario: Scenario, checks: Check[]): string | undefined {
  const failing = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  if (failing.length === 0) return 'it passes: it applies';
  const said = failing.map((check) => `${check.status} ${check.errorMessage ?? ''}`).join('; ');
  const tool = /Tool '?(\w+)'? not found/.exec(said)?.[1];
  if (tool !== undefined) {
    return scenario.why.includes(tool) ? undefined : `${said}: the reason does not name ${tool}`;
  }
  if (said.includes('Method not found')) {
    return scenario.why.includes('Method not found') ? undefined : `${said}: the reason does not say so`;
  }
  if (failing.every((check) => check.status === 'WARNING') && scenario.why.includes('SSE')) return undefined;
  return `${said}: not what the reason says`;
}

let service: InProcessService;
let proxy: BearerProxy;
let node: string;
let scenarios: Scenario[];
let run: { checks: Map<string, Check[]>; output: string };

beforeAll(async () => {
  node = await ensureLambdaNode();
  scenarios = await scenariosInDocs();
  service = await startInProcess({ workers: false });
  const base = service.runtime.apiUrl;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  const { access_token: accessToken, scope } = await accessTokenFor({
    baseUrl: base,
    apiKey,
    scope: 'notes:read',
    clientName: 'MCP conformance suite',
  });
  expect(scope).toBe('notes:read');
  proxy = await startBearerProxy(base, accessToken);
  run = await runSuite(node, `${proxy.url}/mcp`, ['--suite', 'all']);
}, 300_000);

afterAll(async () => {
  await proxy?.close();
  await service?.stop();
});

describe('the official MCP conformance suite against the local /mcp with a real access token', () => {
  it('runs every scenario docs/mcp.md classifies, and docs/mcp.md classifies every scenario it ran', () => {
    const ran = [...run.checks.keys()].sort();
    expect(ran.length, run.output).toBeGreaterThan(0);
    expect(ran).toEqual(scenarios.map((scenario) => scenario.name).sort());
  });

  it('passes server-initialize, ping, tools-list and dns-rebinding-protection, and every other scenario that applies', () => {
    const applicable = scenarios.filter((scenario) => scenario.applies).map((scenario) => scenario.name);
    expect(applicable).toEqual(
      expect.arrayContaining(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']),
    );
    for (const name of applicable) {
      const checks = run.checks.get(name) ?? [];
      expect(
        checks.filter((check) => check.status === 'SUCCESS').length,
        `${name}: no passing check`,
      ).toBeGreaterThan(0);
      expect(notPassed(checks), name).toEqual([]);
    }
  });

  it('skips exactly the scenarios docs/mcp.md lists as not applicable, each with its reason', () => {
    const applicable = new Set(
      scenarios.filter((scenario) => scenario.applies).map((scenario) => scenario.name),
    );
    const skipped = [...run.checks.keys()].filter((name) => !applicable.has(name)).sort();
    const notApplicable = scenarios.filter((scenario) => !scenario.applies);
    expect(notApplicable.map((scenario) => scenario.name).sort()).toEqual(skipped);
    for (const scenario of notApplicable) expect(scenario.why, scenario.name).toMatch(/\w{3,}.*\w{3,}/);
  });

  it('fails each scenario that does not apply the way its reason in docs/mcp.md says', () => {
    const unexplained = scenarios
      .filter((scenario) => !scenario.applies)
      .flatMap((scenario) => {
        const why = unexplainedFailure(scenario, run.checks.get(scenario.name) ?? []);
        return why === undefined ? [] : [`${scenario.name}: ${why}`];
      });
    expect(unexplained).toEqual([]);
  });

  it('fails server-initialize without the proxy: the suite alone gets 401, so the token is what lets it in', async () => {
    const direct = await runSuite(node, `${service.runtime.apiUrl}/mcp`, ['--scenario', 'server-initialize']);
    const checks = direct.checks.get('server-initialize') ?? [];
    expect(checks.length, direct.output).toBeGreaterThan(0);
    expect(notPassed(checks).join('\n')).toMatch(/401|Unauthorized|Missing access token/i);
  });
});
