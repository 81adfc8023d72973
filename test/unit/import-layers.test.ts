import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const DOMAIN = join(SRC, 'domain');

/** Every .ts file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The project modules `file` loads when it runs (static and dynamic imports and re-exports), as
 * absolute paths. `import type` statements are left out: they are erased, so they cannot make a
 * module wait for another.
 */
function runtimeImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = [
    ...text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'(\.{1,2}\/[^']+\.ts)'/gm),
  ].filter((match) => match[1] === undefined);
  const dynamic = [...text.matchAll(/import\(\s*'(\.{1,2}\/[^']+\.ts)'\s*\)/g)];
  return [
    ...statements.map((match) => match[2] as string),
    ...dynamic.map((match) => match[1] as string),
  ].map((specifier) => resolve(dirname(file), specifier));
}

/** Each cycle found in `graph` (module -> the modules it imports), as the path around it. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (module: string) => {
    const at = onPath.indexOf(module);
    if (at >= 0) {
      cycles.push([...onPath.slice(at), module]);
      return;
    }
    if (done.has(module)) return;
    onPath.push(module);
    for (const next of graph.get(module) ?? []) visit(next);
    onPath.pop();
    done.add(module);
  };
  for (const module of graph.keys()) visit(module);
  return cycles;
}

function graphOf(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => [
      relative(SRC, file),
      runtimeImportsOf(file)
        .filter((to) => files.includes(to))
        .map((to) => relative(SRC, to)),
    ]),
  );
}

describe('the import layers of src', () => {
  it('finds a cycle when modules import each other, directly or around several', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      importCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import cycle among the domain modules (what they share sits below them)', () => {
    expect(importCycles(graphOf(sourceFiles(DOMAIN)))).toEqual([]);
  });

  it('keeps the domain free of AWS, HTTP, adapters and the wiring', () => {
    const outside = sourceFiles(DOMAIN).flatMap((file) =>
      runtimeImportsOf(file)
        .filter((to) => !to.startsWith(DOMAIN) && !to.startsWith(join(SRC, 'ports')))
        .map((to) => `${relative(SRC, file)} -> ${relative(SRC, to)}`),
    );
    const aws = sourceFiles(DOMAIN)
      .filter((file) => /from '@aws-sdk\//.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect({ outside, aws }).toEqual({ outside: [], aws: [] });
  });
});
