import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunHoldings } from '../task-root/run-holdings';
import { handToSandboxUser, sandboxUser } from '../sandbox/sandbox-user';
import type { RunFileTools, TaskRoot } from '../task-root/task-root-layout';
import { diffTaskView } from '../task-root/task-view-diff';
import { git } from '../sandbox/test-fixtures';
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

/**
 * A Unix socket at `file`, as a dev server the agent started leaves one behind. Bound by a process
 * started in its folder (a socket's whole path must fit in 108 bytes, the fixture's does not), which
 * is then killed so nothing removes the socket.
 */
function makeSocket(file: string): void {
  const bind = "require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))";
  spawnSync(process.execPath, ['-e', bind, path.basename(file)], { cwd: path.dirname(file), timeout: 10_000 });
  if (!lstatSync(file).isSocket()) throw new Error(`No socket was made at ${file}.`);
}

function makeFifo(file: string): void {
  rmSync(file, { force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

/** The git-layer steps of the view diff, Commit and Land (Land reads what the run holds, then brings its commits in, as LandingService.land does). */
function operatorSteps(taskRoot: TaskRoot, runId: string, options: { tracked?: boolean } = {}): Array<[string, () => Promise<unknown>]> {
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['the view diff', () => diffTaskView(taskRoot, fixture.tools)],
    ['Commit', () => commitRunChanges(taskRoot, fixture.tools, { message: 'Finish', author: operatorIdentity, now: new Date() })],
    [
      'Land',
      async () => {
        await readRunHoldings(taskRoot, fixture.tools, { landedRunTip: null });
        return importRunCommits(taskRoot, fixture.tools, runId);
      },
    ],
  ];
  // Its commits alone (Push's step): git reads attributes and objects there, but no tracked file of the view.
  if (!options.tracked) steps.push(['bringing its commits in (Push)', () => importRunCommits(taskRoot, fixture.tools, runId)]);
  return steps;
}

describe('a file git would read that the run made a FIFO, a socket or a device', () => {
  // Each would make git wait forever (a FIFO git opens) or fail with words of its own (a tracked file
  // it cannot hash): refused up front, within seconds, naming the file, by every step that runs git.
  it.each([
    ['its .gitignore, a FIFO', '.gitignore', 'fifo', 'run_u1', false],
    ['a nested .gitattributes, a FIFO', 'src/.gitattributes', 'fifo', 'run_u2', false],
    ['a tracked file, replaced by a FIFO', 'notes.txt', 'fifo', 'run_u3', true],
    ['a tracked file, replaced by a socket', 'src/app.txt', 'socket', 'run_u4', true],
    ["a nested repository's HEAD, a FIFO", 'vendor/lib/.git/HEAD', 'fifo', 'run_u5', false],
    ['its .mailmap, a FIFO', '.mailmap', 'fifo', 'run_u6', false],
  ])('%s: the view diff, Commit and Land each refuse in seconds, naming it', async (_case, file, kind, runId, tracked) => {
    const taskRoot = await prepareRun(fixture, runId);
    await agentCommits(taskRoot, { 'feature.txt': 'committed by the agent\n' }, 'agent work');
    await agentWrites(taskRoot, { 'README.md': '# Project\n\nUncommitted, by the agent.\n' });
    mkdirSync(path.join(taskRoot.view, 'vendor', 'lib', '.git', 'objects'), { recursive: true });
    mkdirSync(path.join(taskRoot.view, 'vendor', 'lib', '.git', 'refs'), { recursive: true });
    const special = path.join(taskRoot.view, file);
    if (kind === 'fifo') makeFifo(special);
    else {
      rmSync(special);
      makeSocket(special);
    }
    await handToSandboxUser([taskRoot.view], sandboxUser());
    const tipBefore = git(taskRoot.view, 'rev-parse', 'HEAD');

    for (const [step, act] of operatorSteps(taskRoot, runId, { tracked })) {
      const started = Date.now();
      const outcome = await act().then(
        () => 'answered',
        (error: unknown) => error,
      );
      // Generous for a loaded two-core machine; git waiting on the FIFO took 60 to 120 s.
      expect(Date.now() - started, step).toBeLessThan(10_000);
      expect(outcome, step).toMatchObject({ code: 'git_failed', reason: 'unreadable_run_file', message: expect.stringContaining(file) });
      expect((outcome as Error).message, step).toMatch(kind === 'fifo' ? /a FIFO/ : /a socket/);
      expect((outcome as Error).message, step).toMatch(/Delete|discard/);
    }
    // Nothing was committed or brought into the project.
    expect(git(taskRoot.view, 'rev-parse', 'HEAD')).toBe(tipBefore);
    expect(existsSync(path.join(fixture.project, '.git', 'refs', 'operator-console', 'imported'))).toBe(false);
  }, 60_000);

  it("a FIFO in the run's own object store is refused the same way, named where it is", async () => {
    const taskRoot = await prepareRun(fixture, 'run_u7');
    await agentCommits(taskRoot, { 'feature.txt': 'committed by the agent\n' }, 'agent work');
    await agentWrites(taskRoot, { 'README.md': '# Project\n\nUncommitted, by the agent.\n' });
    const alternates = path.join(taskRoot.repository!.gitDir, 'objects', 'info', 'alternates');
    makeFifo(alternates);
    await handToSandboxUser([taskRoot.repository!.gitDir], sandboxUser());

    for (const [step, act] of operatorSteps(taskRoot, 'run_u7')) {
      const started = Date.now();
      await expect(act(), step).rejects.toMatchObject({ code: 'git_failed', reason: 'unreadable_run_file', message: expect.stringContaining(alternates) });
      expect(Date.now() - started, step).toBeLessThan(10_000);
    }
  }, 60_000);

  it('leaves alone what git never opens: an untracked socket, a FIFO in an ignored folder', async () => {
    const taskRoot = await prepareRun(fixture, 'run_u8');
    await agentWrites(taskRoot, { '.gitignore': 'tmp/\n', 'README.md': '# Project\n\nUncommitted, by the agent.\n' });
    makeSocket(path.join(taskRoot.view, 'dev-server.sock'));
    makeFifo(path.join(taskRoot.view, 'tmp', 'pids', 'control.fifo'));
    await handToSandboxUser([taskRoot.view], sandboxUser());

    const diff = await diffTaskView(taskRoot, fixture.tools);
    expect(diff.files.map((entry) => entry.path).sort()).toEqual(['.gitignore', 'README.md']);
    const committed = await commitRunChanges(taskRoot, fixture.tools, { message: 'Finish', author: operatorIdentity, now: new Date() });
    expect(committed.files.sort()).toEqual(['.gitignore', 'README.md']);
  }, 60_000);
});
