import { describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/entities';
import { groupNotices, noticeState, noticeWording, rerunLinks } from './notice-state';

function notice(overrides: Partial<Notice>): Notice {
  return {
    id: 'ntc_1',
    kind: 'ai_connection_required',
    severity: 'warning',
    title: 'AI connection required',
    message: 'Choose an AI connection for Sandboxed fixture.',
    actionUrl: '#/agents/agt_1/ai-connection',
    actionLabel: 'Choose an AI connection',
    runId: 'run_1',
    agentId: 'agt_1',
    taskId: 'tsk_1',
    environmentId: null,
    status: 'open',
    createdAt: '2026-11-29T10:00:00.000Z',
    resolvedAt: null,
    resolution: null,
    code: 'configuration_incomplete',
    reason: 'ai_connection_required',
    runIds: ['run_1'],
    canRunAgain: false,
    rerunRunIds: [],
    ...overrides,
  };
}

describe('notice states', () => {
  it('tells an open notice, one that can run again, one that already did, and closed ones apart', () => {
    expect(noticeState(notice({}))).toBe('open');
    expect(noticeState(notice({ status: 'resolved', canRunAgain: true }))).toBe('can-run-again');
    expect(noticeState(notice({ status: 'resolved', rerunRunIds: ['run_2'] }))).toBe('ran-again');
    expect(noticeState(notice({ status: 'resolved' }))).toBe('resolved');
    expect(noticeState(notice({ status: 'dismissed' }))).toBe('dismissed');
  });
});

describe('the Notices page groups', () => {
  const open = notice({ id: 'ntc_open' });
  const ready = notice({ id: 'ntc_ready', status: 'resolved', canRunAgain: true });
  const ran = notice({ id: 'ntc_ran', status: 'resolved', rerunRunIds: ['run_2'] });
  const dismissed = notice({ id: 'ntc_gone', status: 'dismissed' });

  it('shows open notices and resolved ones that can still run again; the rest are closed', () => {
    const groups = groupNotices([open, ready, ran, dismissed], new Set());
    expect(groups.open.map((n) => n.id)).toEqual(['ntc_open']);
    expect(groups.ready.map((n) => n.id)).toEqual(['ntc_ready']);
    expect(groups.closed.map((n) => n.id)).toEqual(['ntc_ran', 'ntc_gone']);
  });

  it('keeps a notice just run again in view, with its link to the new run', () => {
    const groups = groupNotices([ran], new Set(['ntc_ran']));
    expect(groups.ready.map((n) => n.id)).toEqual(['ntc_ran']);
  });
});

describe('links to the runs Run again started', () => {
  it('reads "Open the new run" for one run', () => {
    expect(rerunLinks(['run_2'], undefined)).toEqual([{ runId: 'run_2', label: 'Open the new run' }]);
    expect(rerunLinks(['run_2'], [{ id: 'run_2', taskTitle: 'Plan the refund flow' }])).toEqual([{ runId: 'run_2', label: 'Open the new run' }]);
  });

  it('names each run by its task when there are several, once each', () => {
    expect(
      rerunLinks(['run_2', 'run_3'], [
        { id: 'run_2', taskTitle: 'Plan the refund flow' },
        { id: 'run_3', taskTitle: 'Fix rounding' },
      ]),
    ).toEqual([
      { runId: 'run_2', label: 'Open the new run of Plan the refund flow' },
      { runId: 'run_3', label: 'Open the new run of Fix rounding' },
    ]);
    expect(rerunLinks(['run_2', 'run_3'], undefined).map((link) => link.label)).toEqual(['Open new run 1', 'Open new run 2']);
  });
});

describe('notice wording', () => {
  it('asks for the fix while open, and says in the past tense what fixed it once resolved', () => {
    expect(noticeWording(notice({}))).toEqual({ message: 'Choose an AI connection for Sandboxed fixture.', earlier: null });
    const resolved = notice({ status: 'resolved', resolution: 'Sandboxed fixture was given the AI connection “Team key”.' });
    expect(noticeWording(resolved)).toEqual({
      message: 'Sandboxed fixture was given the AI connection “Team key”.',
      earlier: 'Choose an AI connection for Sandboxed fixture.',
    });
    // Resolved before the console kept what fixed it.
    expect(noticeWording(notice({ status: 'resolved' })).message).toBe('Its cause was fixed.');
    expect(noticeWording(notice({ status: 'dismissed' })).message).toBe('You dismissed this notice.');
  });
});
