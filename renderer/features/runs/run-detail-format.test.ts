import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../shared/entities';
import { canArchiveOrDelete, canResumeRun, isArchivedRun } from './run-detail-format';

describe('what an ended run offers', () => {
  it('archives and deletes only runs that have ended', () => {
    expect(canArchiveOrDelete({ status: 'succeeded', canStop: false })).toBe(true);
    expect(canArchiveOrDelete({ status: 'stranded', canStop: false })).toBe(true);
    expect(canArchiveOrDelete({ status: 'refused', canStop: false })).toBe(true);
    expect(canArchiveOrDelete({ status: 'running', canStop: true })).toBe(false);
    expect(canArchiveOrDelete({ status: 'queued', canStop: true })).toBe(false);
    // Ended in the ledger, but its process is still being stopped.
    expect(canArchiveOrDelete({ status: 'cancelled', canStop: true })).toBe(false);
  });

  it('never offers Resume for an archived run: its worktree is gone', () => {
    expect(canResumeRun({ canResume: true, archived: false })).toBe(true);
    expect(canResumeRun({ canResume: true, archived: true })).toBe(false);
    expect(canResumeRun({ canResume: false, archived: false })).toBe(false);
  });

  it('marks an archived run in the list', () => {
    const summary: RunSummary = {
      id: 'run_1',
      taskId: 'tsk_1',
      taskTitle: 'Fix it',
      agentId: 'agt_1',
      agentName: 'Codex',
      projectId: 'prj_1',
      status: 'succeeded',
      attempt: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      startedAt: null,
      endedAt: null,
      archived: false,
      hostUnreachableSince: null,
      hostWorkLeftSince: null,
      landing: { state: 'not_landed', landed: null, pushed: null, discardedAt: null, filesRemovedAt: null, diskBytes: null },
    };
    expect(isArchivedRun(summary)).toBe(false);
    expect(isArchivedRun({ ...summary, archived: true })).toBe(true);
  });
});
