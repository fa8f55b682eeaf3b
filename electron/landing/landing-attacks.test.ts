import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handToSandboxUser, sandboxUser } from '../confinement/sandbox-user';
import type { RunFileTools } from '../confinement/task-root-layout';
import { git } from '../confinement/test-fixtures';
import { agentCommits, agentWrites, makeLandingFixture, operatorIdentity, prepareRun, type LandingFixture } from './landing-test-fixtures';
import { landInProject, pushRunBranch } from './project-landing';
import { importRunCommits } from './run-import';
import { commitRunChanges } from './run-store-commit';

/**
 * The agent writes its store; landing must get nothing from that. Every program git could be made to
 * run from a repository's config, hooks and attributes is planted in the run's store, each leaving a
 * marker on the host if it ever ran; then the whole landing (commit, import, land with the working
 * copy updated, push) runs, and no marker may exist. A control first shows the plants are live: the
 * agent's own git, opening its store as a repository, runs them.
 */

let fixture: LandingFixture;
let markers: string;

beforeEach(async () => {
  fixture = await makeLandingFixture('oc-land-attack-');
  markers = path.join(fixture.base, 'markers');
  // World-writable, so a planted program would leave its marker whoever it ran as. (Inside the tool
  // sandbox this folder is read-only, so there the sandbox stops them too: "hardened git alone"
  // is the case that shows the hardening does.)
  mkdirSync(markers);
  chmodSync(markers, 0o777);
});

afterEach(() => fixture.cleanup());

const hooks = ['pre-commit', 'post-commit', 'reference-transaction', 'pre-push', 'post-checkout', 'post-merge', 'pre-receive', 'update', 'post-update'];

function plantEverything(gitDir: string, view: string): void {
  // Quoted: an unquoted ";" starts a comment in a git config file.
  const touch = (name: string) => `"sh -c 'touch ${markers}/${name}; cat'"`;
  const script = (name: string) => `#!/bin/sh\ntouch ${markers}/${name}\ncat >/dev/null 2>&1 || true\n`;
  const hooksPath = path.join(view, '.agent-hooks');
  mkdirSync(hooksPath, { recursive: true });
  mkdirSync(path.join(gitDir, 'hooks'), { recursive: true });
  for (const hook of hooks) {
    writeFileSync(path.join(gitDir, 'hooks', hook), script(`hook-${hook}`), { mode: 0o755 });
    writeFileSync(path.join(hooksPath, hook), script(`hookspath-${hook}`), { mode: 0o755 });
  }
  const fsmonitor = path.join(view, '.agent-fsmonitor');
  writeFileSync(fsmonitor, script('fsmonitor'), { mode: 0o755 });
  writeFileSync(
    path.join(gitDir, 'config'),
    [
      '[core]',
      '\trepositoryformatversion = 0',
      '\tbare = true',
      `\tsshCommand = ${touch('ssh-command')}`,
      `\tfsmonitor = ${fsmonitor}`,
      `\thooksPath = ${hooksPath}`,
      '[credential]',
      `\thelper = "!sh -c 'touch ${markers}/credential-helper; cat'"`,
      '[filter "x"]',
      `\tclean = ${touch('filter-clean')}`,
      `\tsmudge = ${touch('filter-smudge')}`,
      '\trequired = true',
      '',
    ].join('\n'),
  );
}

const planted = () => readdirSync(markers).sort();

describe('landing never runs what the agent planted in its store', () => {
  it.each(['hardened git alone', 'hardened git in the tool sandbox'])('commit, import, land and push (%s)', async (layers) => {
    const tools: RunFileTools = layers === 'hardened git alone' ? { ...fixture.tools, isolation: { kind: 'none' } } : fixture.tools;
    const taskRoot = await prepareRun(fixture, 'run_x1');
    const { gitDir } = taskRoot.repository!;
    // Committed, and in the view: every file goes through filter x.
    await agentCommits(taskRoot, { '.gitattributes': '* filter=x\n', 'feature.txt': 'committed by the agent\n' }, 'agent work');
    plantEverything(gitDir, taskRoot.view);
    await agentWrites(taskRoot, { 'README.md': '# Project\n\nUncommitted, by the agent.\n', 'added.txt': 'untracked, by the agent\n' });
    await handToSandboxUser([gitDir], sandboxUser());

    // The control: opened as a repository, the store runs them.
    execFileSync('git', ['-c', 'safe.directory=*', 'hook', 'run', 'pre-commit'], { cwd: taskRoot.view, stdio: 'ignore' });
    execFileSync('git', ['-c', 'safe.directory=*', 'add', '--dry-run', 'README.md'], { cwd: taskRoot.view, stdio: 'ignore' });
    expect(planted()).toEqual(expect.arrayContaining(['filter-clean', 'fsmonitor', 'hookspath-pre-commit']));
    for (const marker of planted()) rmSync(path.join(markers, marker));

    const committed = await commitRunChanges(taskRoot, tools, { message: 'Finish', author: operatorIdentity, now: new Date() });
    expect(committed.files.sort()).toEqual(['.agent-fsmonitor', '.agent-hooks/post-checkout', '.agent-hooks/post-commit', '.agent-hooks/post-merge', '.agent-hooks/post-update', '.agent-hooks/pre-commit', '.agent-hooks/pre-push', '.agent-hooks/pre-receive', '.agent-hooks/reference-transaction', '.agent-hooks/update', 'README.md', 'added.txt']);
    const imported = await importRunCommits(taskRoot, tools, 'run_x1');
    expect(imported).toMatchObject({ tip: committed.commit, commitCount: 2 });
    const landed = await landInProject(fixture.project, { runId: 'run_x1', tip: imported.tip, target: 'main', strategy: 'fast-forward', message: '', identity: operatorIdentity });
    expect(landed).toMatchObject({ commit: committed.commit, workingCopyUpdated: true });
    const remote = path.join(fixture.base, 'remote.git');
    execFileSync('git', ['init', '--quiet', '--bare', remote]);
    git(fixture.project, 'remote', 'add', 'origin', remote);
    await pushRunBranch(fixture.project, { remote: 'origin', commit: landed.commit, branch: 'operator-console/run_x1' });

    expect(planted()).toEqual([]);
    // What landed is what the agent wrote, byte for byte (no filter touched it), in the project and the remote.
    expect(readFileSync(path.join(fixture.project, 'README.md'), 'utf8')).toBe('# Project\n\nUncommitted, by the agent.\n');
    expect(readFileSync(path.join(fixture.project, 'added.txt'), 'utf8')).toBe('untracked, by the agent\n');
    expect(readFileSync(path.join(fixture.project, 'feature.txt'), 'utf8')).toBe('committed by the agent\n');
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');
    expect(git(remote, 'rev-parse', 'refs/heads/operator-console/run_x1')).toBe(landed.commit);
    // The project's own repository gained no hook and no config of the agent's.
    expect(git(fixture.project, 'config', '--local', '--list')).not.toMatch(/sshcommand|fsmonitor|hookspath|credential|filter/i);
  });

  it("refuses to import from a branch ref the agent made a FIFO, without hanging", async () => {
    const taskRoot = await prepareRun(fixture, 'run_x2');
    await agentCommits(taskRoot, { 'feature.txt': 'x\n' }, 'work');
    const ref = path.join(taskRoot.repository!.gitDir, 'refs', 'heads', 'operator-console', 'run_x2');
    unlinkSync(ref);
    execFileSync('mkfifo', [ref]);
    const started = Date.now();
    await expect(importRunCommits(taskRoot, fixture.tools, 'run_x2')).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/FIFO/) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(path.join(fixture.project, '.git', 'refs', 'operator-console', 'imported'))).toBe(false);
  });
});
