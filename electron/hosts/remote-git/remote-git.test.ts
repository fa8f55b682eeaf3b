import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importRunCommits } from '../../landing/run-import';
import { landInProject } from '../../landing/project-landing';
import { makeLandingFixture, operatorIdentity, prepareRun, type LandingFixture } from '../../landing/landing-test-fixtures';
import { git } from '../../sandbox/test-fixtures';
import { makeTempDir } from '../../testing/temp-dir';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';
import { sshConnectionTo, type SshConnection } from '../remote-script';
import { sshEnvironment, type SshSettings } from '../ssh-command';
import { fetchRunCommits } from './fetch-run-commits';
import { showRemoteWorkInView } from './remote-work-in-view';
import { diffTaskView } from '../../task-root/task-view-diff';
import { sendBaseRevision } from './send-base-revision';

/**
 * The code round trip with a real OpenSSH server on 127.0.0.1 (the remote is another user account),
 * real git on both sides and real bubblewrap on the host: the base goes there as a bundle of only what
 * the host lacks, the run's commits come back as a pack checked with index-pack --strict, and they land
 * as a local run's do. The run's repository on the host is the agent's: every trick it can play there
 * (hooks, a filter and fsmonitor in its config, a linked .git, a bad object, a huge pack, a FIFO where
 * git reads) is refused or neutral, with a stable reason, and writes nothing to the local repository.
 */

const remoteHome = `/home/${remoteTestUser}`;
let server: SshTestServer;
let ssh: SshConnection;
let known: { path: string; remove: () => void };

beforeAll(async () => {
  server = await startSshTestServer();
  known = makeTempDir('oc-remote-git-known-');
  writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n${server.knownHostsLine(server.garbledPort)}\n`);
  const settings: SshSettings = {
    program: 'ssh',
    configFile: server.configFile,
    env: sshEnvironment({ ...process.env, ...server.env }),
    consoleKnownHosts: path.join(known.path, 'known_hosts'),
    connectTimeoutSeconds: 10,
  };
  ssh = await sshConnectionTo(settings, server.alias);
}, 30_000);
afterAll(async () => {
  await server?.stop();
  known?.remove();
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A folder of the test's in the remote user's home (relative to it, as the console names remote paths). */
function remoteFolder(): string {
  const name = `.oc-remote-git-test/${randomBytes(6).toString('hex')}`;
  cleanups.push(() => rmSync(path.join(remoteHome, name), { recursive: true, force: true }));
  return name;
}

/** The agent on the host: a shell as the remote user, in its repository. */
function asAgent(repository: string, script: string): string {
  return execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', 'sh', '-c', script], {
    cwd: path.join(remoteHome, repository),
    env: { PATH: '/usr/bin:/bin', HOME: remoteHome, GIT_AUTHOR_NAME: 'Agent', GIT_AUTHOR_EMAIL: 'agent@example.invalid', GIT_COMMITTER_NAME: 'Agent', GIT_COMMITTER_EMAIL: 'agent@example.invalid' },
    encoding: 'utf8',
  }).trim();
}

/** The operator's project: enough files that a whole history is far larger than one commit of it. */
function makeProject(): string {
  const dir = makeTempDir('oc-remote-git-project-');
  cleanups.push(dir.remove);
  git(dir.path, 'init', '--quiet', '-b', 'main');
  for (let index = 0; index < 60; index += 1) writeFileSync(path.join(dir.path, `module-${index}.txt`), `${randomBytes(3000).toString('base64')}\n`);
  git(dir.path, 'add', '-A');
  git(dir.path, 'commit', '--quiet', '-m', 'initial');
  return dir.path;
}

/** A run's local repository as the console prepares one: bare, borrowing the project's objects, its branch at the base. */
function makeLocalRunRepository(project: string, base: string): string {
  const dir = makeTempDir('oc-remote-git-local-');
  cleanups.push(dir.remove);
  const gitDir = path.join(dir.path, 'git');
  git(dir.path, 'init', '--quiet', '--bare', '--template=', gitDir);
  writeFileSync(path.join(gitDir, 'objects', 'info', 'alternates'), `${path.join(project, '.git', 'objects')}\n`);
  git(gitDir, 'update-ref', 'refs/heads/operator-console/run_1', base);
  return gitDir;
}

/** Every file under a folder with its size and modification time: "nothing was written" is this unchanged. */
function snapshot(folder: string): string[] {
  const entries: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      const stat = statSync(file);
      // A folder's own time changes when a quarantine is made and removed in it: its entries are what count.
      entries.push(stat.isDirectory() ? `${path.relative(folder, file)}/` : `${path.relative(folder, file)} ${stat.size} ${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(file);
    }
  };
  walk(folder);
  return entries;
}

interface RemoteRun {
  project: string;
  base: string;
  store: string;
  repository: string;
  local: string;
}

async function sentRun(): Promise<RemoteRun> {
  const project = makeProject();
  const base = git(project, 'rev-parse', 'HEAD');
  const folder = remoteFolder();
  const store = `${folder}/store.git`;
  const repository = `${folder}/run/view`;
  await sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: base, remoteRepository: repository, remoteStore: store });
  return { project, base, store, repository, local: makeLocalRunRepository(project, base) };
}

const fetchInto = (run: RemoteRun, options: { maxPackBytes?: number; timeoutMs?: number } = {}) =>
  fetchRunCommits({ ssh, host: server.alias, remoteRepository: run.repository, remoteStore: run.store, localRepository: run.local, ref: 'refs/heads/operator-console/run_1', ...options });

describe('the code round trip to an SSH host', () => {
  it('sends the base as a bundle of only what the host lacks, and checks it out there', async () => {
    const project = makeProject();
    const folder = remoteFolder();
    const store = `${folder}/store.git`;
    const first = await sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD', remoteRepository: `${folder}/one`, remoteStore: store });
    expect(first.baseRevision).toBe(git(project, 'rev-parse', 'HEAD'));
    // The whole history: 60 files of 4 KB of random text.
    expect(first.bundleBytes).toBeGreaterThan(150_000);
    expect(readFileSync(path.join(remoteHome, folder, 'one', 'module-7.txt'), 'utf8')).toBe(readFileSync(path.join(project, 'module-7.txt'), 'utf8'));
    expect(asAgent(`${folder}/one`, 'git rev-parse HEAD && git symbolic-ref HEAD && git status --porcelain')).toBe(`${first.baseRevision}\nrefs/heads/operator-console/run`);
    // The run's repository has no hooks (no template), and borrows the store's objects instead of copying them.
    expect(existsSync(path.join(remoteHome, folder, 'one', '.git', 'hooks'))).toBe(false);
    expect(readdirSync(path.join(remoteHome, folder, 'one', '.git', 'objects', 'pack'))).toEqual([]);

    // The operator changes one file: the second run's bundle holds that commit only.
    writeFileSync(path.join(project, 'module-3.txt'), 'changed\n');
    git(project, 'commit', '--quiet', '-am', 'second');
    const second = await sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD', remoteRepository: `${folder}/two`, remoteStore: store });
    expect(second.bundleBytes).toBeGreaterThan(0);
    expect(second.bundleBytes).toBeLessThan(2_000);
    expect(readFileSync(path.join(remoteHome, folder, 'two', 'module-3.txt'), 'utf8')).toBe('changed\n');

    // The same base again, or an older one: nothing crosses at all.
    expect((await sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD~1', remoteRepository: `${folder}/three`, remoteStore: store })).bundleBytes).toBe(0);
    expect(readFileSync(path.join(remoteHome, folder, 'three', 'module-3.txt'), 'utf8')).not.toBe('changed\n');

    // A repository that is there already is not made again.
    await expect(sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD', remoteRepository: `${folder}/one`, remoteStore: store })).rejects.toMatchObject({
      code: 'git_failed',
      reason: 'remote_repository_exists',
    });
  }, 60_000);

  it('passes remote paths as data: the host never parses them', async () => {
    const project = makeProject();
    const folder = remoteFolder();
    const odd = `${folder}/it's a dir $(touch ${remoteHome}/${folder}-pwned) ;x`;
    await sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD', remoteRepository: odd, remoteStore: `${folder}/store.git` });
    expect(existsSync(path.join(remoteHome, odd, 'module-1.txt'))).toBe(true);
    expect(existsSync(`${remoteHome}/${folder}-pwned`)).toBe(false);
    await expect(sendBaseRevision({ ssh, host: server.alias, localRepository: project, baseRevision: 'HEAD', remoteRepository: `${folder}/a\\b`, remoteStore: `${folder}/store.git` })).rejects.toThrow(
      /will not send to a host/,
    );
  }, 60_000);

  it('brings the run’s commits back as a checked pack, sets the ref, and sends only what is new', async () => {
    const run = await sentRun();
    const tip = asAgent(run.repository, 'echo agent work > feature.txt && git add feature.txt && git commit -qm feature && git rev-parse HEAD');
    expect(() => git(run.local, 'cat-file', '-e', tip)).toThrow();

    expect(await fetchInto(run)).toMatchObject({ head: tip });
    expect(git(run.local, 'rev-parse', 'refs/heads/operator-console/run_1')).toBe(tip);
    expect(git(run.local, 'show', `${tip}:feature.txt`)).toBe('agent work');
    expect(git(run.local, 'fsck', '--strict', '--no-dangling')).toBe('');
    // Only the new commit's objects came back (commit, tree, blob), not the project's history.
    const packs = readdirSync(path.join(run.local, 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
    expect(packs).toHaveLength(1);
    expect(statSync(path.join(run.local, 'objects', 'pack', packs[0]!)).size).toBeLessThan(4_000);
    expect(readdirSync(path.join(run.local, 'objects')).filter((name) => name.startsWith('incoming-'))).toEqual([]);

    // Again with nothing new: the same head, nothing more written.
    const before = snapshot(run.local);
    expect(await fetchInto(run)).toMatchObject({ head: tip });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);

  it('shows the run’s commits and uncommitted work in its local view, and lands its commits, as a local run’s', async () => {
    const fixture: LandingFixture = await makeLandingFixture('oc-remote-land-');
    cleanups.push(() => fixture.cleanup());
    const taskRoot = await prepareRun(fixture, 'run_remote1');
    const folder = remoteFolder();
    const run = { project: fixture.project, base: taskRoot.baseRevision!, store: `${folder}/store.git`, repository: `${folder}/view`, local: taskRoot.repository!.gitDir };
    await sendBaseRevision({ ssh, host: server.alias, localRepository: fixture.project, baseRevision: run.base, remoteRepository: run.repository, remoteStore: run.store });
    const tip = asAgent(run.repository, 'printf "remote feature\\n" > remote.txt && git add remote.txt && git commit -qm "remote feature" && git rev-parse HEAD');
    // What the agent left uncommitted: a change, a new file, a deleted file.
    asAgent(run.repository, 'printf "changed on the host\\n" >> README.md && printf "draft\\n" > draft.txt && rm notes.txt');

    const fetched = await fetchRunCommits({ ssh, host: server.alias, remoteRepository: run.repository, remoteStore: run.store, localRepository: run.local, ref: `refs/heads/${taskRoot.branch}` });
    expect(fetched).toMatchObject({ head: tip, workTree: expect.stringMatching(/^[0-9a-f]{40}$/), shownBefore: run.base });
    await showRemoteWorkInView(taskRoot, fixture.tools, fetched);

    // The run's Changes read the local view as for a local run: the commit and what was left uncommitted.
    const changes = await diffTaskView(taskRoot, fixture.tools);
    expect(changes.files.map((file) => `${file.status} ${file.path}`).sort()).toEqual(['added draft.txt', 'added remote.txt', 'deleted notes.txt', 'modified README.md']);
    expect(readFileSync(path.join(taskRoot.view, 'draft.txt'), 'utf8')).toBe('draft\n');
    // The view's index is at the run's HEAD: the uncommitted work shows as uncommitted there.
    expect(git(taskRoot.view, 'rev-parse', 'HEAD')).toBe(tip);
    expect(git(taskRoot.view, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(taskRoot.view, 'diff', '--name-status')).toBe('M\tREADME.md\nD\tnotes.txt');
    expect(git(taskRoot.view, 'ls-files', '--others', '--exclude-standard')).toBe('draft.txt');

    // Landing takes the commits, as for a local run.
    const imported = await importRunCommits(taskRoot, fixture.tools, 'run_remote1');
    expect(imported).toEqual({ tip, base: run.base, commitCount: 1 });
    expect(await landInProject(fixture.project, { runId: 'run_remote1', tip, target: 'main', strategy: 'fast-forward', message: 'Land', identity: operatorIdentity })).toMatchObject({
      commit: tip,
      workingCopyUpdated: true,
    });
    expect(readFileSync(path.join(fixture.project, 'remote.txt'), 'utf8')).toBe('remote feature\n');
  }, 90_000);
});

describe('a hostile run repository on the host', () => {
  it('runs none of the hooks, filters or fsmonitor its config names, and reads none of that config', async () => {
    const run = await sentRun();
    const marker = `${remoteHome}/${run.repository.split('/')[1]}-ran`;
    const tip = asAgent(
      run.repository,
      [
        'echo x > x.txt && git add x.txt && git commit -qm x',
        'mkdir -p .git/hooks',
        `for hook in pre-commit post-checkout post-rewrite reference-transaction pre-push post-index-change fsmonitor-watchman; do printf '#!/bin/sh\\ntouch ${marker}-hook\\n' > .git/hooks/$hook; chmod +x .git/hooks/$hook; done`,
        `git config core.fsmonitor 'touch ${marker}-fsmonitor; false'`,
        `git config filter.evil.clean 'touch ${marker}-filter; cat' && git config filter.evil.smudge 'touch ${marker}-filter; cat' && git config filter.evil.required true`,
        "echo '* filter=evil' > .gitattributes",
        `git config core.hooksPath .git/hooks && git config core.alternateRefsCommand 'touch ${marker}-refs'`,
        'git rev-parse HEAD',
        // A config git would refuse to open the repository with at all: the console's git never reads it.
        'git config core.repositoryformatversion 99',
      ].join('\n'),
    );
    expect(await fetchInto(run)).toMatchObject({ head: tip });
    expect(readdirSync(path.dirname(marker)).filter((name) => name.startsWith(path.basename(marker)))).toEqual([]);
  }, 60_000);

  it('refuses a .git that is a link (to another of the remote user’s repositories) and writes nothing', async () => {
    const run = await sentRun();
    const other = `${path.dirname(run.repository)}/other`;
    asAgent(path.dirname(run.repository), `git init -q other && cd other && echo secret > secret.txt && git add . && git commit -qm secret`);
    asAgent(run.repository, `rm -rf .git && ln -s ${remoteHome}/${other}/.git .git`);
    const before = snapshot(run.local);
    await expect(fetchInto(run)).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_repository_unsafe', message: expect.stringMatching(/\.git is a link/) });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);

  it('brings back nothing of the remote user’s other repositories that an alternates line points at', async () => {
    const run = await sentRun();
    const other = `${path.dirname(run.repository)}/other`;
    const secretCommit = asAgent(path.dirname(run.repository), 'git init -q other && cd other && echo "the remote user’s secret" > secret.txt && git add . && git commit -qm secret && git rev-parse HEAD');
    // The agent borrows that repository's objects and points its branch at the secret commit.
    asAgent(run.repository, `echo ${remoteHome}/${other}/.git/objects >> .git/objects/info/alternates && git update-ref refs/heads/operator-console/run ${secretCommit}`);
    const before = snapshot(run.local);
    // In the host's sandbox that repository is not there: the branch names a commit the run does not hold.
    await expect(fetchInto(run)).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_head_missing' });
    expect(snapshot(run.local)).toEqual(before);
    expect(() => git(run.local, 'cat-file', '-e', secretCommit)).toThrow();
  }, 60_000);

  it('refuses a pack with an object that fails git’s check, and writes nothing', async () => {
    const run = await sentRun();
    // A commit git walks without complaint but fsck refuses (a time zone of +99999).
    asAgent(
      run.repository,
      [
        'tree=$(git rev-parse HEAD^{tree}) parent=$(git rev-parse HEAD)',
        'bad=$(printf "tree %s\\nparent %s\\nauthor A <a@example.invalid> 1700000000 +99999\\ncommitter A <a@example.invalid> 1700000000 +0000\\n\\nbad\\n" "$tree" "$parent" | git hash-object -t commit --literally -w --stdin)',
        'git update-ref refs/heads/operator-console/run "$bad"',
      ].join('\n'),
    );
    const before = snapshot(run.local);
    await expect(fetchInto(run)).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_pack_refused', message: expect.stringMatching(/did not pass git’s check.*Nothing was written/) });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);

  it('refuses a pack larger than the limit, and writes nothing', async () => {
    const run = await sentRun();
    // Each file under the limit, all of them together (random, so they do not compress) far over it.
    asAgent(run.repository, 'for i in 1 2 3 4 5 6 7 8 9 10; do head -c 100000 /dev/urandom > part-$i.bin; done && git add . && git commit -qm parts');
    const before = snapshot(run.local);
    await expect(fetchInto(run, { maxPackBytes: 256 * 1024 })).rejects.toMatchObject({
      code: 'git_failed',
      reason: 'remote_pack_too_large',
      message: expect.stringMatching(/sent more than 262144 bytes of the run’s commits/),
    });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);

  it('refuses a pack bomb (a file that packs small and inflates past the limit) on the host, and writes nothing', async () => {
    const run = await sentRun();
    asAgent(run.repository, 'head -c 50000000 /dev/zero > zeros.bin && git add zeros.bin && git commit -qm zeros');
    const before = snapshot(run.local);
    await expect(fetchInto(run, { maxPackBytes: 256 * 1024 })).rejects.toMatchObject({
      code: 'git_failed',
      reason: 'remote_pack_too_large',
      message: expect.stringMatching(/hold a file of more than 262144 bytes/),
    });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);

  it('brings the work tree back past a FIFO the agent left in it, without waiting on it or bringing it', async () => {
    const run = await sentRun();
    const tip = asAgent(run.repository, 'echo y > y.txt && git add y.txt && git commit -qm y && mkfifo pipe && echo draft > draft.txt && git rev-parse HEAD');
    const fetched = await fetchInto(run, { timeoutMs: 20_000 });
    expect(fetched.head).toBe(tip);
    const files = git(run.local, 'ls-tree', '-r', '--name-only', fetched.workTree!).split('\n');
    expect(files).toContain('draft.txt');
    expect(files).not.toContain('pipe');
  }, 60_000);

  it('stops a host that stalls (a FIFO where git reads HEAD), leaving nothing running there', async () => {
    const run = await sentRun();
    asAgent(run.repository, 'rm .git/HEAD && mkfifo .git/HEAD');
    const before = snapshot(run.local);
    const started = Date.now();
    await expect(fetchInto(run, { timeoutMs: 3_000 })).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_git_timed_out' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(snapshot(run.local)).toEqual(before);
    // Nothing of the console's is left waiting on the FIFO on the host.
    const left = execFileSync('ps', ['-u', remoteTestUser, '-o', 'args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(run.repository));
    expect(left).toEqual([]);
  }, 60_000);

  it('refuses an answer that is not a pack (a host that prints something else)', async () => {
    const run = await sentRun();
    const before = snapshot(run.local);
    await expect(
      fetchRunCommits({ ssh, host: server.garbledAlias, remoteRepository: run.repository, remoteStore: run.store, localRepository: run.local, ref: 'refs/heads/operator-console/run_1' }),
    ).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_pack_refused' });
    expect(snapshot(run.local)).toEqual(before);
  }, 60_000);
});
