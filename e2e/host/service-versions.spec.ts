import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test, expect } from '@playwright/test';
import { startBrowserHost, type BrowserHost } from '../launchers/browser-host';
import { builtVersion, otherVersionBuild } from '../launchers/other-version-build';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from '../specs/helpers';

/**
 * An older console service is running a run when this version's `npm run serve -- --after-runs` is
 * chosen: the older one's page says it finishes its runs and then hands over, the run ends whole on
 * the older version, and this version's service starts by itself afterwards, showing the run finished.
 */

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const lines = 150;
let dataDir: string;
let scratch: string;
const cleanups: Array<() => unknown> = [];

test.beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-versions-'));
  scratch = mkdtempSync(path.join(tmpdir(), 'oc-e2e-versions-project-'));
});

test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** The pid of the console holding the data directory; undefined while none does (between two services). */
function ownerPid(): number | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already, as the test meant.
  }
}

test('an older service finishes its run and hands over to this version by itself, and its page says so meanwhile', async ({ browser }) => {
  const older = otherVersionBuild('0.0.9-older');
  cleanups.push(() => older.remove());
  const olderServe = spawn(process.execPath, [older.serveEntry, '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => void olderServe.kill('SIGKILL'));
  const olderUrl = (await new Promise<string>((resolve) => createInterface({ input: olderServe.stdout }).once('line', resolve))).replace(/^Operator Console: /, '');
  const olderPid = ownerPid()!;
  cleanups.push(() => kill(olderPid));

  const context = await browser.newContext();
  cleanups.push(() => context.close());
  const page = await context.newPage();
  await page.goto(olderUrl);
  await addProject(page, makeRepository(path.join(scratch, 'refunds')));
  await addFixtureAgent(page, 'Steady writer', ['--lines', String(lines), '--delay-ms', '40']);
  await addTask(page, 'Write it all down');
  await runTask(page, 'Write it all down', 'Steady writer');
  await expect(terminal(page)).toContainText(/line \d+ of 150/);
  const runId = /#\/runs\/([^/?]+)/.exec(page.url())![1]!;

  // The operator chooses: let the run finish, and switch afterwards.
  const switching = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(process.execPath, [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--data-dir', dataDir, '--after-runs'], { cwd: repoRoot, timeout: 30_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
    ),
  );
  expect(switching.code).toBe(0);
  expect(switching.stderr).toContain(`version ${builtVersion} starts by itself when it ends`);
  await expect(page.getByRole('status')).toContainText(
    `Version 0.0.9-older is finishing its runs and starts no new one; version ${builtVersion} takes over by itself when they end.`,
  );

  // The run ends on the older version; then this version's service starts by itself.
  await expect.poll(() => ownerPid() ?? olderPid, { timeout: 30_000 }).not.toBe(olderPid);
  const newerPid = ownerPid()!;
  cleanups.push(() => kill(newerPid));
  const host: BrowserHost = await startBrowserHost({ dataDir });
  cleanups.push(() => host.stop());
  expect(host.pid).toBe(newerPid);
  const reopened = await context.newPage();
  await reopened.goto(`${host.url}#/runs/${runId}`);
  await expect(reopened.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  await expect(terminal(reopened)).toContainText(`line ${lines} of ${lines}`);
  await expect(reopened.getByRole('status')).not.toContainText('finishing its runs');
});
