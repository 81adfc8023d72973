import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What the documentation says that can be checked, checked: README.md and docs/ (not docs/public,
 * which `npm run docs:build` generates and test/unit/published-docs-are-current.test.ts checks).
 *
 * - Every relative link and image resolves: the file or folder exists, and a `#anchor` is the
 *   GitHub-style anchor of a heading in the target file (or in the page itself).
 * - Every `npm` and `notes` command quoted in README.md (its quick start among them) exists: `npm
 *   start`, `npm test` and `npm run X` as scripts of package.json, `notes <command>` (also as `npm
 *   run notes -- …` or `node cli/bin/notes.mjs …`) as a command of the CLI (cli/src/commands/index.mjs).
 * - Every `NOTES_*` variable the code reads is documented in exactly one row of a configuration table
 *   (a table whose first column is "variable": docs/self-hosting.md for the service, cli/README.md
 *   for the CLI's own), and every name such a row documents is read by the code.
 * - The README stays short, and docs/README.md lists every page, each of which says who it is for.
 *
 * Each check lists everything wrong at once, with the file and line.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const rel = (path: string) => relative(ROOT, path).split(sep).join('/');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** README.md and every markdown file under docs/ but docs/public/, repository-relative. */
function documentationFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && path !== 'docs/public') walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found.sort();
}

/**
 * The text with fenced code blocks and inline code spans blanked (replaced by spaces, lines kept),
 * so that what looks like a link or a heading inside code is not taken for one.
 */
function withoutCode(text: string): string {
  let fence: string | null = null;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        return '';
      }
      if (marker) {
        fence = marker;
        return '';
      }
      return line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));
    })
    .join('\n');
}

/** The anchor GitHub gives a heading: its text as shown, lower-cased, punctuation dropped, spaces to hyphens. */
function githubAnchor(heading: string): string {
  const shown = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return shown
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its headings' (repeats numbered as GitHub does) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined && heading !== null) {
      const base = githubAnchor(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id ?? '');
  }
  return anchors;
}

interface Link {
  line: number;
  text: string;
  target: string;
}

/**
 * Markdown links and images (their text may run over lines), reference definitions, and HTML
 * `href`/`src`, outside code; each with the line it starts on.
 */
function linksOf(markdown: string): Link[] {
  const text = withoutCode(markdown);
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
  const patterns: Array<[RegExp, number]> = [
    [/!?\[((?:[^[\]\\]|\\.)*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, 2],
    [/^ {0,3}\[([^\]\n]+)\]:[ \t]*<?(\S+?)>?(?=\s|$)/gm, 2],
    [/<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]+)"/g, 1],
  ];
  return patterns
    .flatMap(([pattern, group]) =>
      [...text.matchAll(pattern)].map((match) => ({
        line: lineAt(match.index),
        text: match[0].replace(/\s*\n\s*/g, ' ').trim(),
        target: match[group] ?? '',
      })),
    )
    .sort((a, b) => a.line - b.line);
}

const external = (target: string) => /^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target);

/** What is wrong with the relative links of `file`, one sentence each. */
function brokenLinks(file: string, anchorsOfFile: (path: string) => Set<string>): string[] {
  const problems: string[] = [];
  for (const link of linksOf(read(file))) {
    if (external(link.target)) continue;
    const [pathPart = '', anchor] = link.target.split('#', 2) as [string, string | undefined];
    const path = decodeURIComponent(pathPart);
    const target = path === '' ? file : rel(resolve(ROOT, dirname(file), path));
    const where = `${file}:${link.line}: ${link.text}`;
    if (target.startsWith('..')) {
      problems.push(`${where}: points outside the repository`);
      continue;
    }
    if (!existsSync(join(ROOT, target))) {
      problems.push(`${where}: ${target} does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!target.endsWith('.md') || statSync(join(ROOT, target)).isDirectory()) continue;
    const anchors = anchorsOfFile(target);
    if (!anchors.has(decodeURIComponent(anchor))) {
      const near = [...anchors].filter((candidate) => candidate.includes(anchor.split('-')[0] ?? anchor));
      problems.push(
        `${where}: no heading of ${target} has the anchor #${anchor}` +
          (near.length > 0 ? ` (its anchors like it: ${near.slice(0, 5).join(', ')})` : ''),
      );
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Commands

interface CliCommand {
  name: string;
}
interface CliGroup {
  name: string;
  commands: CliCommand[];
}

/** The code in README.md: fenced blocks and inline spans, with the line each starts on. */
function codeOf(markdown: string): Array<{ line: number; code: string }> {
  const pieces: Array<{ line: number; code: string }> = [];
  let fence: { marker: string; line: number; lines: string[] } | null = null;
  markdown.split('\n').forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence.marker[0] && marker.length >= fence.marker.length) {
        pieces.push({ line: fence.line, code: fence.lines.join('\n') });
        fence = null;
      } else fence.lines.push(line);
      return;
    }
    if (marker) {
      fence = { marker, line: index + 2, lines: [] };
      return;
    }
    for (const [, , span] of line.matchAll(/(`+)((?:(?!\1)[\s\S])*?)\1/g)) {
      pieces.push({ line: index + 1, code: span ?? '' });
    }
  });
  return pieces;
}

/** The shell commands in a piece of code: split at newlines, `&&`, `||`, `;`, `|` and `$(`, comments dropped. */
function commandsIn(code: string): string[] {
  return code
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .flatMap((line) => line.split(/&&|\|\||;|\||\$\(/))
    .map((command) => command.replace(/[()]/g, ' ').trim())
    .map((command) => command.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, ''))
    .filter((command) => command.length > 0);
}

/** What is wrong with one command, or null when it exists (or is not an npm or notes command). */
function unknownCommand(
  command: string,
  scripts: Record<string, string>,
  topLevel: string[],
  groups: CliGroup[],
): string | null {
  const words = command.split(/\s+/);
  let cli: string[] | null = null;
  if (words[0] === 'npm') {
    const [, verb, script, dashes, ...rest] = words;
    if (verb === 'start' || verb === 'test') {
      return verb in scripts ? null : `package.json has no "${verb}" script`;
    }
    if (verb !== 'run' || script === undefined) return null;
    if (!(script in scripts)) return `package.json has no "${script}" script`;
    if (script === 'notes' && dashes === '--') cli = rest;
    else return null;
  } else if (words[0] === 'notes') cli = words.slice(1);
  else if (words[0] === 'node' && words[1] === 'cli/bin/notes.mjs') cli = words.slice(2);
  if (cli === null) return null;
  const [first, second] = cli;
  if (first === undefined || ['--help', '-h', '--version', '-V', 'help'].includes(first)) return null;
  if (topLevel.includes(first)) return null;
  const group = groups.find((candidate) => candidate.name === first);
  if (!group) return `the CLI has no command "notes ${first}" (cli/src/commands/index.mjs)`;
  if (second === undefined || second === '--help' || second === '-h') return null;
  return group.commands.some((candidate) => candidate.name === `${first} ${second}`)
    ? null
    : `the CLI has no command "notes ${first} ${second}" (cli/src/commands/index.mjs)`;
}

// ---------------------------------------------------------------------------------------------------
// Settings

/** Source files of the service and the CLI that may read settings (tests and the CDK app excluded). */
function codeFiles(): string[] {
  const found: string[] = ['scripts/start.mjs'];
  const walk = (dir: string) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
    }
  };
  for (const dir of ['src', 'bin', 'functions', 'cli/src', 'cli/bin']) walk(dir);
  return found.sort();
}

/**
 * Every `NOTES_*` environment variable the code reads, with the first file that reads it: the keys
 * of the configuration schema (src/config.ts), `env.NOTES_X` / `env['NOTES_X']`, and a name given
 * whole as a string (`origin(env, 'NOTES_PUBLIC_URL', …)`, the CLI's help), outside comments. Names
 * the bundler defines (`declare const NOTES_…`) are constants of a build, not settings.
 */
function settingsTheCodeReads(): Map<string, string> {
  const read_ = new Map<string, string>();
  const note = (name: string, file: string) => {
    if (!read_.has(name)) read_.set(name, file);
  };
  const config = read('src/config.ts');
  const schema = /const schema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(config)?.[1];
  if (!schema) throw new Error('src/config.ts: no `const schema = z.object({ … });` found: update this test');
  for (const [, name] of schema.matchAll(/^ {2}(NOTES_[A-Z0-9_]+):/gm)) note(name ?? '', 'src/config.ts');
  const defined = new Set<string>();
  for (const file of codeFiles()) {
    const text = read(file);
    for (const [, name] of text.matchAll(/declare const (NOTES_[A-Z0-9_]+)/g)) defined.add(name ?? '');
    for (const line of text.split('\n')) {
      if (/^\s*(\/\/|\/?\*)/.test(line)) continue;
      for (const [, name] of line.matchAll(/\benv(?:\?\.|\.|\[\s*['"`])(NOTES_[A-Z0-9_]+)/g))
        note(name ?? '', file);
      for (const [, name] of line.matchAll(/['"`](NOTES_[A-Z0-9_]+)['"`]/g)) note(name ?? '', file);
    }
  }
  for (const name of defined) read_.delete(name);
  return read_;
}

/** The rows of configuration tables (first header cell "variable"): the names each documents, and where. */
function configurationRows(files: string[]): Array<{ where: string; names: string[] }> {
  const rows: Array<{ where: string; names: string[] }> = [];
  for (const file of files) {
    const original = read(file).split('\n');
    const lines = withoutCode(original.join('\n')).split('\n');
    let inTable = false;
    lines.forEach((line, index) => {
      if (!line.startsWith('|')) {
        inTable = false;
        return;
      }
      const cells = line.split('|').slice(1, -1);
      if (/^\s*variable\s*$/i.test(cells[0] ?? '') && /^\s*\|?\s*:?-+/.test(lines[index + 1] ?? '')) {
        inTable = true;
        return;
      }
      if (!inTable || /^\|\s*:?-+/.test(line)) return;
      // The first cell as written (withoutCode blanked its code spans).
      const first = (original[index] ?? '').split('|')[1] ?? '';
      rows.push({
        where: `${file}:${index + 1}`,
        names: [...first.matchAll(/NOTES_[A-Z0-9_]+/g)].map((m) => m[0]),
      });
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------

const files = documentationFiles();
const anchorCache = new Map<string, Set<string>>();
const anchorsOfFile = (path: string) => {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    anchors = anchorsOf(read(path));
    anchorCache.set(path, anchors);
  }
  return anchors;
};

describe('the documentation (README.md and docs/)', () => {
  it('resolves every relative link and #anchor', () => {
    const problems = files.flatMap((file) => brokenLinks(file, anchorsOfFile));
    expect(problems, `broken links:\n${problems.join('\n')}`).toEqual([]);
  });

  it('quotes only npm scripts and notes commands that exist', async () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const cliCommands = pathToFileURL(join(ROOT, 'cli', 'src', 'commands', 'index.mjs')).href;
    const { TOP_LEVEL, GROUPS } = (await import(cliCommands)) as {
      TOP_LEVEL: CliCommand[];
      GROUPS: CliGroup[];
    };
    const topLevel = TOP_LEVEL.map((command) => command.name);
    const readme = read('README.md');
    const problems: string[] = [];
    let checked = 0;
    for (const piece of codeOf(readme)) {
      for (const command of commandsIn(piece.code)) {
        if (!/^(npm|notes|node cli\/bin\/notes\.mjs)\b/.test(command)) continue;
        checked += 1;
        const problem = unknownCommand(command, scripts, topLevel, GROUPS);
        if (problem) problems.push(`README.md:${piece.line}: \`${command}\`: ${problem}`);
      }
    }
    expect(problems, `commands the README quotes that do not exist:\n${problems.join('\n')}`).toEqual([]);
    const quickStart = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    expect(quickStart, 'README.md has a "## Quick start" section').not.toBe('');
    expect(quickStart).toMatch(/^npm start\b/m);
    expect(quickStart).toMatch(/^npm test\b/m);
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('documents every NOTES_* setting the code reads in exactly one configuration table row', () => {
    const read_ = settingsTheCodeReads();
    const rows = configurationRows([...files, 'cli/README.md']);
    const rowsOf = new Map<string, string[]>();
    for (const row of rows)
      for (const name of row.names) rowsOf.set(name, [...(rowsOf.get(name) ?? []), row.where]);
    const problems: string[] = [];
    for (const [name, file] of [...read_].sort()) {
      const where = rowsOf.get(name) ?? [];
      if (where.length === 0) {
        problems.push(
          `${name} (read in ${file}) is in no configuration table: add a row to docs/self-hosting.md#configuration` +
            " (the CLI's own settings: cli/README.md#configuration)",
        );
      } else if (where.length > 1) {
        problems.push(`${name} is documented in ${where.length} rows, ${where.join(', ')}: keep one`);
      }
    }
    for (const [name, where] of [...rowsOf].sort()) {
      if (!read_.has(name)) problems.push(`${name} (${where.join(', ')}) is documented but no code reads it`);
    }
    expect(problems, `configuration tables out of step with the code:\n${problems.join('\n')}`).toEqual([]);
    expect(read_.size).toBeGreaterThan(40);
  });

  it('keeps the README under 250 lines', () => {
    const lines = read('README.md').split('\n').length - 1;
    expect(lines, `README.md has ${lines} lines: move detail into docs/ and link to it`).toBeLessThan(250);
  });

  it('lists every page in docs/README.md, and each page says who it is for', () => {
    const index = read('docs/README.md');
    const linked = new Set(
      linksOf(index)
        .filter((link) => !external(link.target))
        .map((link) => rel(resolve(ROOT, 'docs', link.target.split('#')[0] ?? ''))),
    );
    const problems: string[] = [];
    for (const file of files.filter((path) => path.startsWith('docs/'))) {
      if (file !== 'docs/README.md' && !linked.has(file))
        problems.push(`${file} is not listed in docs/README.md`);
      const firstParagraph = read(file).split('\n\n')[1] ?? '';
      if (!firstParagraph.startsWith('**Who this is for:**')) {
        problems.push(`${file} does not begin (after its title) with "**Who this is for:** …"`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('keeps the MCP conformance scenarios where the conformance test reads them (docs/mcp.md)', () => {
    const table = /<!-- conformance-scenarios -->([\s\S]*?)<!-- \/conformance-scenarios -->/.exec(
      read('docs/mcp.md'),
    )?.[1];
    expect(table, 'docs/mcp.md has the table between <!-- conformance-scenarios --> markers').toBeDefined();
    expect([...(table ?? '').matchAll(/^\| `[\w-]+` \| (yes|no) \| .+ \|$/gm)].length).toBeGreaterThan(10);
  });
});

describe('githubAnchor', () => {
  it.each([
    ['Walk-through with curl', 'walk-through-with-curl'],
    [
      '`localhost`, browser-based clients and the origin policy',
      'localhost-browser-based-clients-and-the-origin-policy',
    ],
    [
      'Speakers: the voice model and `speakers_by` (issue 37)',
      'speakers-the-voice-model-and-speakers_by-issue-37',
    ],
    [
      "Whisper's plumbing, next to pocketsphinx (issue 36)",
      'whispers-plumbing-next-to-pocketsphinx-issue-36',
    ],
    ['What is protected, and how', 'what-is-protected-and-how'],
    ['A · B → C', 'a--b--c'],
  ])('%s -> #%s', (heading, anchor) => {
    expect(githubAnchor(heading)).toBe(anchor);
  });
});
