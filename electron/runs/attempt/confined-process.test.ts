import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunTestBed, type RunTestBed } from '../../testing/run-test-kit';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

/** The pids of live processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches.
  }
}

describe('a confined process', () => {
  it('that cannot be made findable again (the ledger refuses its locator) is stopped: its attempt and run fail, nothing is left running', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    // The ledger (a real SQLite file) refuses the process locator, as a full disk or a damaged page would.
    b.core.ledger.db.exec(`CREATE TRIGGER refuse_process_locator BEFORE INSERT ON locators WHEN NEW.kind = 'process' BEGIN SELECT RAISE(ABORT, 'locator refused'); END`);
    const marker = `confined-${randomUUID()}`;
    const agent = await b.createAgent(['--session-id', marker, '--sleep-ms', '60000']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    expect(run.failure?.code).toBe('internal');
    // No attempt is left running under a run that ended.
    expect(b.core.ledger.runs.attempts(started.id)).toMatchObject([{ status: 'failed', failureCode: 'internal' }]);
    // The agent, which would sleep a minute, was stopped: it is not left running unwatched and unfindable.
    const deadline = Date.now() + 5000;
    while (processesWith(marker).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesWith(marker)).toEqual([]);
  });
});
