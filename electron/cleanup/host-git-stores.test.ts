import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleOnHost as consoleOnTestHost } from '../testing/host-run-test-kit';
import { gitInit, type RunTestBed } from '../testing/run-test-kit';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../testing/ssh-test-server';

/**
 * The projects' git stores on an SSH host (issue 28: one per project, which runs' repositories there
 * borrow from) are removed by Clean up once no run there needs them, against the real sshd: kept while
 * a run of the project still has its task root there, gone with the last, and the host's figure drops;
 * a project removed from the console loses its stores at the next clean-up; links planted in the
 * stores lead the removal nowhere outside. (A stores folder that is itself a link is tested on the
 * supervisor alone, remote-supervisor-stores.test.ts: the account here is shared by every host test.)
 */

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer();
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const remoteHome = () => execFileSync('getent', ['passwd', remoteTestUser], { encoding: 'utf8' }).split(':')[5]!;
const storesFolder = () => path.join(remoteHome(), '.operator-console', 'git-stores');
const storeOf = (projectId: string) => path.join(storesFolder(), `${projectId}.git`);
/** What the supervisor counts for a folder: the blocks of everything below it, links not followed. */
function treeBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    total += lstatSync(file).blocks * 512;
    if (entry.isDirectory()) total += treeBytes(file);
  }
  return total;
}
const asRemoteUser = (file: string) => execFileSync('chown', ['-hR', `${remoteTestUser}:${remoteTestUser}`, file]);

const beds: RunTestBed[] = [];
const planted: string[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) {
    const runIds = bed.core.ledger.runs.withStatus(['succeeded', 'failed', 'cancelled', 'running', 'preparing']).map((row) => row.id);
    await bed.close();
    for (const runId of runIds) rmSync(path.join(remoteHome(), '.operator-console', 'runs', runId), { recursive: true, force: true });
  }
  for (const file of planted.splice(0)) rmSync(file, { recursive: true, force: true });
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

async function consoleOnHost() {
  const { bed, host, agent: makeAgent } = await consoleOnTestHost(server, beds);
  const hostId = host.id;
  const agent = await makeAgent(['--lines', '1']);
  const run = async (projectId = bed.projectId) => {
    const task = await bed.call('createTask', { projectId, title: 'Write the plan', prompt: 'Write notes/plan.md' });
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const done = await bed.waitForRun(runId, ended, 90_000);
    expect(done.status, JSON.stringify(done.failure)).toBe('succeeded');
    return runId;
  };
  const cleanUp = (runId: string) => bed.call('cleanUpRuns', { runIds: [runId], confirmedRunIds: [runId] });
  const hostFigure = async () => {
    const [figure] = (await bed.call('getDiskUsage', { refresh: true })).hosts.filter((each) => each.hostId === hostId);
    return figure!;
  };
  return { bed, run, cleanUp, hostFigure };
}

describe('the projects’ git stores on an SSH host', () => {
  it('stay while a run of the project still has its files there, go with the last one’s clean-up, and the host’s figure drops', async () => {
    const { bed, run, cleanUp, hostFigure } = await consoleOnHost();
    const first = await run();
    const second = await run();
    expect(existsSync(storeOf(bed.projectId))).toBe(true);
    const storeBytes = treeBytes(storeOf(bed.projectId));
    const before = await hostFigure();
    expect(before.error).toBeNull();
    // The host's account is shared with the other host tests: its figure counts their stores too.
    expect(before.gitStores).toBeGreaterThanOrEqual(1);
    expect(before.gitStoreBytes).toBeGreaterThanOrEqual(storeBytes);

    const one = await cleanUp(first);
    expect(one.removed).toEqual([first]);
    expect(one.gitStores).toEqual([]);
    expect(existsSync(storeOf(bed.projectId))).toBe(true);

    const last = await cleanUp(second);
    expect(last.removed).toEqual([second]);
    expect(last.gitStores).toEqual([{ host: server.alias, removed: 1, freedBytes: storeBytes, error: null }]);
    expect(existsSync(storeOf(bed.projectId))).toBe(false);
    // The figure shown drops by what went, without measuring the host again.
    const [after] = (await bed.call('getDiskUsage')).hosts;
    expect(after).toMatchObject({ gitStores: before.gitStores - 1, gitStoreBytes: before.gitStoreBytes! - storeBytes, bytes: before.bytes! - storeBytes });
  }, 240_000);

  it('of a project removed from the console go at the next clean-up, and links planted in them lead the removal nowhere outside', async () => {
    const { bed, run, cleanUp } = await consoleOnHost();
    // A second project, its run on the host, then the project removed from the console.
    const otherDir = mkdtempSync(path.join(bed.dataDir, '..', 'oc-other-project-'));
    planted.push(otherDir);
    gitInit(otherDir);
    const other = await bed.call('addProject', { path: otherDir });
    await run(other.id);
    expect(existsSync(storeOf(other.id))).toBe(true);
    await bed.call('removeProject', { projectId: other.id });

    // The remote user's own files, which links where the stores are point to.
    const victim = path.join(remoteHome(), 'victim-of-store-links');
    planted.push(victim);
    mkdirSync(path.join(victim, 'inside'), { recursive: true });
    writeFileSync(path.join(victim, 'keep.txt'), 'the remote user’s\n');
    writeFileSync(path.join(victim, 'inside', 'keep.txt'), 'the remote user’s too\n');
    asRemoteUser(victim);
    // The removed project's store is a link now; the other store holds a link out.
    rmSync(storeOf(other.id), { recursive: true, force: true });
    symlinkSync(path.join(victim, 'inside'), storeOf(other.id));
    asRemoteUser(storeOf(other.id));
    const runId = await run();
    symlinkSync(victim, path.join(storeOf(bed.projectId), 'planted'));
    asRemoteUser(storeOf(bed.projectId));

    const cleaned = await cleanUp(runId);
    expect(cleaned.removed).toEqual([runId]);
    expect(cleaned.gitStores).toMatchObject([{ host: server.alias, removed: 2, error: null }]);
    expect(existsSync(storeOf(other.id))).toBe(false);
    expect(existsSync(storeOf(bed.projectId))).toBe(false);
    expect(readFileSync(path.join(victim, 'keep.txt'), 'utf8')).toBe('the remote user’s\n');
    expect(readFileSync(path.join(victim, 'inside', 'keep.txt'), 'utf8')).toBe('the remote user’s too\n');
  }, 240_000);
});
