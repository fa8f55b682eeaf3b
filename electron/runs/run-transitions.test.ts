import { afterEach, describe, expect, it } from 'vitest';
import { runStatuses, type RunStatus } from '../../shared/entities';
import { newId } from '../ledger/ids';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { allowedTransitions, isAllowedTransition, transitionRun } from './run-transitions';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

/** A run record in the real ledger, in `status`, for an agent and task that exist. */
async function runIn(status: RunStatus) {
  const b = await openRunTestBed();
  beds.push(b);
  const agent = await b.createAgent(['--lines', '1']);
  const task = await b.createTask();
  const runId = newId('run');
  b.core.ledger.runs.insert({ id: runId, taskId: task.id, agentId: agent.id, status, createdAt: Date.now() });
  return { b, runId };
}

describe('the run lifecycle table', () => {
  it('names every status, and lets nothing leave a refused run', () => {
    expect(Object.keys(allowedTransitions).sort()).toEqual([...runStatuses].sort());
    for (const to of runStatuses) expect(isAllowedTransition('refused', to)).toBe(false);
  });

  it('walks a run from the queue to success, through a retry and a resume', async () => {
    const { b, runId } = await runIn('queued');
    const context = { ledger: b.core.ledger, log: b.log };
    for (const to of ['admitted', 'preparing', 'running', 'preparing', 'running', 'succeeded', 'admitted', 'preparing', 'running', 'cancelled'] as const) {
      expect(transitionRun(context, runId, to), `→ ${to}`).toBe(true);
      expect(b.core.ledger.runs.row(runId)?.status).toBe(to);
    }
  });

  it('sets a run up before its agent runs, and lets a setup fail, stop or strand it, but never go back to preparing', async () => {
    const { b, runId } = await runIn('queued');
    const context = { ledger: b.core.ledger, log: b.log };
    for (const to of ['admitted', 'preparing', 'setting_up', 'running', 'succeeded'] as const) {
      expect(transitionRun(context, runId, to), `→ ${to}`).toBe(true);
    }
    for (const end of ['failed', 'cancelled', 'stranded'] as const) expect(isAllowedTransition('setting_up', end)).toBe(true);
    expect(isAllowedTransition('setting_up', 'preparing')).toBe(false);
    expect(isAllowedTransition('setting_up', 'succeeded')).toBe(false);
    expect(isAllowedTransition('admitted', 'setting_up')).toBe(false);
  });

  it('refuses an illegal change, logs it, and leaves the record as it was', async () => {
    const { b, runId } = await runIn('queued');
    const context = { ledger: b.core.ledger, log: b.log };
    // A queued run cannot succeed without having run, nor be stranded (nothing of it was live).
    expect(transitionRun(context, runId, 'succeeded', { failure: { code: 'internal', message: 'x' }, endedAt: 1 })).toBe(false);
    expect(transitionRun(context, runId, 'stranded')).toBe(false);
    const row = b.core.ledger.runs.row(runId)!;
    expect(row).toMatchObject({ status: 'queued', failure_json: null, ended_at: null });
    expect(b.log.lines.filter((line) => String(line.message).startsWith('run status change refused'))).toMatchObject([
      { level: 'error', runId, from: 'queued', to: 'succeeded' },
      { level: 'error', runId, from: 'queued', to: 'stranded' },
    ]);
    // An ended run is not ended twice (a late exit after a Stop, say).
    expect(transitionRun(context, runId, 'cancelled')).toBe(true);
    expect(transitionRun(context, runId, 'failed')).toBe(false);
    expect(b.core.ledger.runs.row(runId)?.status).toBe('cancelled');
  });

  it('lets only one of two writers that read the same status move the run', async () => {
    const { b, runId } = await runIn('running');
    // Both saw "running"; the first move wins and the second finds the run moved.
    expect(b.core.ledger.runs.setStatus(runId, 'running', 'cancelled')).toBe(true);
    expect(b.core.ledger.runs.setStatus(runId, 'running', 'succeeded')).toBe(false);
    expect(b.core.ledger.runs.row(runId)?.status).toBe('cancelled');
  });

  it('refuses a change for a run that is not in the ledger', async () => {
    const { b } = await runIn('queued');
    expect(transitionRun({ ledger: b.core.ledger, log: b.log }, 'run_missing', 'admitted')).toBe(false);
  });
});
