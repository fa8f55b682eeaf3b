import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareTaskRoot } from './task-root';
import { measureTaskRoot } from './task-root-size';
import { fixtureTools, makeOperatorFixture, type OperatorFixture } from '../sandbox/test-fixtures';

let fixture: OperatorFixture;

beforeEach(() => {
  fixture = makeOperatorFixture('oc-size-');
});

afterEach(() => fixture.cleanup());

const MiB = 1024 * 1024;

/** Random bytes, so no file system can store them in less than their size. */
function writeBytes(file: string, bytes: number): void {
  writeFileSync(file, Buffer.from(Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))));
}

describe('measureTaskRoot', () => {
  it("counts what the run wrote and never what a link it left points at", async () => {
    const tools = await fixtureTools(fixture);
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_s1', project: { path: fixture.project, isGitRepo: true } });
    const before = await measureTaskRoot(taskRoot, tools);
    expect(before).toBeGreaterThan(0);

    writeBytes(path.join(taskRoot.view, 'output.bin'), 2 * MiB);
    writeBytes(path.join(taskRoot.cache, 'cached.bin'), MiB);
    // Outside the task root, reached only by links the agent left: a folder and a file.
    const outside = path.join(fixture.base, 'outside');
    mkdirSync(outside);
    writeBytes(path.join(outside, 'large.bin'), 8 * MiB);
    symlinkSync(outside, path.join(taskRoot.view, 'link-to-outside'));
    symlinkSync(path.join(outside, 'large.bin'), path.join(taskRoot.tmp, 'file-link'));

    const after = await measureTaskRoot(taskRoot, tools);
    expect(after! - before!).toBeGreaterThanOrEqual(3 * MiB);
    expect(after! - before!).toBeLessThan(4 * MiB);
  });

  it("reads a sandboxed run's files as the run's user, the console's own as the console", async () => {
    const tools = await fixtureTools(fixture, { sandboxed: true });
    const owner = tools.isolation.kind === 'bubblewrap' ? tools.isolation.setup.user : null;
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_s2', project: { path: fixture.otherProject, isGitRepo: false }, owner });
    // As the run left them: its own, closed to everyone else.
    const folder = path.join(taskRoot.view, 'private');
    mkdirSync(folder, { mode: 0o700 });
    writeBytes(path.join(folder, 'output.bin'), 2 * MiB);
    chmodSync(path.join(folder, 'output.bin'), 0o600);
    if (owner) for (const entry of [folder, path.join(folder, 'output.bin')]) chownSync(entry, owner.uid, owner.gid);
    // The base snapshot of the copy is the console's, and counted too.
    expect(await measureTaskRoot(taskRoot, tools)).toBeGreaterThanOrEqual(2 * MiB);
  });

  it('answers null when du runs out of time, and for a task root that is not there', async () => {
    const tools = await fixtureTools(fixture);
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_s3', project: { path: fixture.project, isGitRepo: true } });
    expect(await measureTaskRoot(taskRoot, tools, { timeoutMs: 1 })).toBeNull();
    expect(await measureTaskRoot({ ...taskRoot, root: path.join(fixture.dataDir, 'tasks', 'run_gone') }, tools)).toBeNull();
  });
});
