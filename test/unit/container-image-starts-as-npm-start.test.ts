import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { npmStartNodeArgs } from '../../scripts/start-command.mjs';
import { REPO_ROOT } from '../../src/local/runtime.ts';

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

/** The JSON array of the Dockerfile's one exec-form instruction `name` (the last, as Docker uses). */
function execForm(name: 'CMD' | 'ENTRYPOINT'): string[] | undefined {
  const lines = dockerfile.split('\n').filter((line) => line.startsWith(`${name} `));
  const last = lines.at(-1);
  return last === undefined ? undefined : (JSON.parse(last.slice(name.length + 1)) as string[]);
}

describe('the container image', () => {
  it("runs node with npm start's flags and launcher, in exec form, under tini and nothing else", () => {
    const [launcher, ...flagsReversed] = npmStartNodeArgs(REPO_ROOT).reverse();
    const expected = ['node', ...flagsReversed.reverse(), relative(REPO_ROOT, launcher as string)];
    expect(execForm('CMD')).toEqual(expected);
    // An init as PID 1 that passes signals on and reaps orphans; no shell that would swallow SIGTERM.
    expect(execForm('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--']);
  });
});
