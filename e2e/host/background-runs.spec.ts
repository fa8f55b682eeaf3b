import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { test, expect } from '@playwright/test';
import { startBrowserHost, type BrowserHost } from '../launchers/browser-host';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from '../specs/helpers';

/**
 * The operator quits mid-run (closes the page and stops `npm run serve`): the console service keeps
 * the run going in the background, and says so. Reopened later, the run has finished on its own and
 * its output is whole, every line once, replayed from the ledger.
 */

const lines = 300;
let dataDir: string;
let scratch: string;
const hosts: BrowserHost[] = [];

test.beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-background-'));
  scratch = mkdtempSync(path.join(tmpdir(), 'oc-e2e-background-project-'));
});

test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

test('a run goes on after the console is quit mid-run, and reopened it has finished with its output whole', async ({ browser }) => {
  const first = await startBrowserHost({ dataDir });
  hosts.push(first);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(first.url);
  await addProject(page, makeRepository(path.join(scratch, 'refunds')));
  await addFixtureAgent(page, 'Steady writer', ['--lines', String(lines), '--delay-ms', '20']);
  await addTask(page, 'Write it all down');
  await runTask(page, 'Write it all down', 'Steady writer');
  await expect(terminal(page)).toContainText(/line \d+ of 300/);
  const runId = /#\/runs\/([^/?]+)/.exec(page.url())![1]!;

  // Quit: the page closes, then the launcher; the service says it keeps the run.
  await context.close();
  expect(await first.stop({ leaveServiceRunning: true })).toBe(0);
  hosts.splice(hosts.indexOf(first), 1);
  expect(first.stderr()).toMatch(/goes on: 1 run going in the background/);

  // Later: the console opened again attaches to the same service, and the run finished meanwhile.
  await new Promise((resolve) => setTimeout(resolve, lines * 20 + 1_000));
  const second = await startBrowserHost({ dataDir });
  hosts.push(second);
  expect(second.pid).toBe(first.pid);
  const reopenedContext = await browser.newContext();
  const reopened = await reopenedContext.newPage();
  // A new browser context, as after a restart of the browser: the address with its token.
  await reopened.goto(`${second.url}#/runs/${runId}`);
  await expect(reopened.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  await expect(terminal(reopened)).toContainText(`line ${lines} of ${lines}`);

  // Whole: every line the agent wrote is in the ledger once, in order.
  const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true });
  try {
    const chunks = db.prepare('SELECT bytes FROM output_chunks WHERE run_id = ? ORDER BY byte_offset').all(runId) as Array<{ bytes: Buffer }>;
    const written = Buffer.concat(chunks.map((chunk) => chunk.bytes)).toString('utf8');
    const numbers = [...written.matchAll(/line (\d+) of 300/g)].map((match) => Number(match[1]));
    expect(numbers).toEqual(Array.from({ length: lines }, (_, index) => index + 1));
  } finally {
    db.close();
  }
  await reopenedContext.close();
});
