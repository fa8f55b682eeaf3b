import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtureParent } from '../sandbox/test-fixtures';
import { createPullRequest, detectGh, pullRequestArgv } from './pull-request';

/**
 * gh's network path cannot run here: a fake `gh` on PATH records the argv and working folder it was
 * started with, and answers as gh does (`auth status` by its exit code, `pr create` with the address).
 */
let bin: string;
let recorded: string;

beforeEach(() => {
  bin = realpathSync(mkdtempSync(path.join(fixtureParent(), 'oc-fake-gh-')));
  recorded = path.join(bin, 'argv');
});

afterEach(() => rmSync(bin, { recursive: true, force: true }));

function fakeGh(script: string): Record<string, string> {
  writeFileSync(
    path.join(bin, 'gh'),
    `#!/bin/sh\npwd > "${recorded}.cwd"\nprintf '%s\\0' "$@" > "${recorded}"\nenv > "${recorded}.env"\n${script}\n`,
  );
  chmodSync(path.join(bin, 'gh'), 0o755);
  return { PATH: `${bin}:/usr/bin:/bin`, HOME: bin };
}

const recordedArgv = () => readFileSync(recorded, 'utf8').split('\0').slice(0, -1);

describe('detectGh', () => {
  it('says what to install when gh is not on PATH', async () => {
    expect(await detectGh({ PATH: '/usr/bin:/bin' })).toEqual({ available: false, hint: expect.stringMatching(/^Install the GitHub CLI \(gh\)/) });
  });

  it('says to log in when `gh auth status` fails, and is available when it succeeds', async () => {
    expect(await detectGh(fakeGh('echo "You are not logged into any GitHub hosts." >&2; exit 1'))).toEqual({ available: false, hint: expect.stringContaining('gh auth login') });
    expect(recordedArgv()).toEqual(['auth', 'status']);
    expect(await detectGh(fakeGh('exit 0'))).toEqual({ available: true, hint: null });
  });
});

describe('createPullRequest', () => {
  const input = { base: 'main', head: 'operator-console/run_1', title: '-Fix the thing', body: 'Landed by the console.\n\n$(touch /tmp/nothing)' };

  it('runs `gh pr create` in the project with the values as given, and reads the address it prints', async () => {
    const env = fakeGh('echo "Creating pull request for operator-console/run_1 into main"; echo "https://github.com/acme/widget/pull/7"');
    const project = mkdtempSync(path.join(bin, 'project-'));
    expect(await createPullRequest(project, input, env)).toEqual({ url: 'https://github.com/acme/widget/pull/7' });
    expect(recordedArgv()).toEqual(['pr', 'create', '--base=main', '--head=operator-console/run_1', '--title=-Fix the thing', `--body=${input.body}`]);
    expect(recordedArgv()).toEqual(pullRequestArgv(input));
    expect(readFileSync(`${recorded}.cwd`, 'utf8').trim()).toBe(project);
    expect(readFileSync(`${recorded}.env`, 'utf8')).toContain('GH_PROMPT_DISABLED=1');
  });

  it('answers with an existing pull request, and says what gh said when it fails', async () => {
    const project = mkdtempSync(path.join(bin, 'project-'));
    const exists = fakeGh('echo \'a pull request for branch "operator-console/run_1" into branch "main" already exists:\' >&2; echo "https://github.com/acme/widget/pull/3" >&2; exit 1');
    expect(await createPullRequest(project, input, exists)).toEqual({ url: 'https://github.com/acme/widget/pull/3' });
    const fails = fakeGh('echo "GraphQL: Head sha can\'t be blank" >&2; exit 1');
    await expect(createPullRequest(project, input, fails)).rejects.toMatchObject({ code: 'conflict', reason: 'pull_request_failed', message: expect.stringContaining("Head sha can't be blank") });
  });
});
