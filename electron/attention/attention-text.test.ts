import { describe, expect, it } from 'vitest';
import type { AttentionEvent } from '../../shared/attention';
import { actionRoute } from '../../shared/routes';
import { mergeRunsWithTheirNotices } from './attention-service';
import { describeEvent, describeRetryTime, describeSummary, type HeardEvent } from './attention-text';

/** What notifications say, as an operator reads them. Times are in the process's time zone. */

const at = (year: number, month: number, day: number, hours: number, minutes: number) => new Date(year, month - 1, day, hours, minutes).getTime();

let serial = 0;
function heard(event: AttentionEvent, extra: Partial<HeardEvent> = {}): HeardEvent {
  const n = ++serial;
  return {
    key: `key-${n}`,
    id: `ntf_${n}`,
    event,
    at: 0,
    run: event === 'notice' ? null : { runId: `run_${n}`, taskTitle: `Task ${n}`, agentName: 'Codex', failureMessage: null, lastAttempt: null },
    notice: null,
    ...extra,
  };
}

describe('when a quota wait ends', () => {
  const now = at(2026, 3, 2, 9, 5);
  it('says the local time today, how long that is, and the day when it is not today', () => {
    expect(describeRetryTime(at(2026, 3, 2, 9, 17), now)).toBe('at 09:17 (in 12 minutes)');
    expect(describeRetryTime(at(2026, 3, 2, 9, 5) + 20_000, now)).toBe('at 09:05 (in less than a minute)');
    expect(describeRetryTime(at(2026, 3, 2, 14, 5), now)).toBe('at 14:05 (in 5 hours)');
    expect(describeRetryTime(at(2026, 3, 3, 0, 30), now)).toBe('tomorrow at 00:30 (in 15 hours)');
    expect(describeRetryTime(at(2026, 4, 1, 0, 0), now)).toBe('on 2026-04-01 at 00:00 (in 30 days)');
  });

  it('is in the notification of the run that waits', () => {
    const text = describeEvent(heard('quota_wait', { retryAt: at(2026, 3, 2, 9, 17), limit: 'rate' }), now);
    expect(text.title).toBe(`Waiting for a quota reset: Task ${serial}`);
    expect(text.body).toBe(`Codex was rate limited by its model provider on “Task ${serial}”. The run retries at 09:17 (in 12 minutes); open it to stop it or run the task on another agent.`);
    expect(text.route).toBe(actionRoute({ kind: 'run', runId: `run_${serial}` }));
  });
});

describe('a flood as one summary', () => {
  it('counts the runs that ended by how they ended', () => {
    const events = [
      ...Array.from({ length: 15 }, () => heard('run_succeeded')),
      ...Array.from({ length: 5 }, () => heard('run_failed')),
    ];
    expect(describeSummary(events, false)).toEqual({
      title: '20 runs ended: 15 succeeded, 5 failed',
      body: 'Open the runs list to see them.',
      route: actionRoute({ kind: 'runs' }),
    });
  });

  it('names the other kinds after the runs that ended, and what needs the operator', () => {
    const notice = { noticeId: 'ntc_1', title: 'CLI not found', message: 'Install it.', actionUrl: '#/agents/agt_1', runIds: [] };
    const events = [heard('run_succeeded'), heard('run_failed', { notice }), heard('quota_wait'), heard('quota_wait'), heard('notice', { notice })];
    expect(describeSummary(events, false)).toEqual({
      title: '2 runs ended: 1 succeeded, 1 failed',
      body: '2 runs waiting for a quota reset; 1 new notice. 2 need you: see Notices. Open the runs list to see them all.',
      route: actionRoute({ kind: 'runs' }),
    });
  });

  it('opens Notices when every event was a notice, and says "more" when a flood goes on', () => {
    const notice = { noticeId: 'ntc_1', title: 'Blocked', message: 'Allow it.', actionUrl: null, runIds: [] };
    expect(describeSummary([heard('notice', { notice }), heard('notice', { notice }), heard('notice', { notice })], false)).toEqual({
      title: '3 new notices',
      body: 'Open Notices to see what each needs.',
      route: actionRoute({ kind: 'notices' }),
    });
    expect(describeSummary([heard('run_stranded')], true).title).toBe('1 more run ended: 1 stranded');
  });
});

describe('a run and its notice', () => {
  it('are one story when the notice stands for the run, told with the notice', () => {
    const refused = heard('run_refused');
    const notice = { noticeId: 'ntc_9', title: 'AI connection required', message: 'Choose one.', actionUrl: '#/agents/agt_1/ai-connection', runIds: [refused.run!.runId] };
    const raised = heard('notice', { notice });
    const other = heard('notice', { notice: { ...notice, noticeId: 'ntc_10', runIds: ['run_elsewhere'] } });
    const stories = mergeRunsWithTheirNotices([raised, refused, other]);
    expect(stories).toEqual([{ ...refused, notice }, other]);
    expect(describeEvent(stories[0]!, 0)).toMatchObject({ title: `AI connection required: ${refused.run!.taskTitle}`, route: notice.actionUrl });
  });

  it('are not merged for a run that succeeded: its click opens the run', () => {
    const succeeded = heard('run_succeeded');
    const notice = heard('notice', { notice: { noticeId: 'ntc_3', title: 'Network request blocked', message: 'Allow the host.', actionUrl: '#/settings/environments/env_1', runIds: [succeeded.run!.runId] } });
    expect(mergeRunsWithTheirNotices([succeeded, notice])).toHaveLength(2);
    expect(describeEvent(succeeded, 0).route).toBe(actionRoute({ kind: 'run', runId: succeeded.run!.runId }));
  });
});

describe('a run the operator resumed', () => {
  const withAttempt = (event: AttentionEvent, lastAttempt: NonNullable<HeardEvent['run']>['lastAttempt'], failureMessage: string | null = null) => {
    const base = heard(event);
    return { ...base, run: { ...base.run!, lastAttempt, failureMessage } };
  };
  const succeededBefore = { status: 'succeeded', failureCode: null, exitCode: 0, signal: null } as const;

  it('says the attempt it ended on was the operator’s, not a retry', () => {
    const resumed = withAttempt('run_succeeded', { number: 2, cause: 'resume', previous: succeededBefore });
    expect(describeEvent(resumed, 0).body).toBe(`Codex finished “${resumed.run.taskTitle}” (attempt 2, resumed by you). Open the run to review its changes.`);
    const followUp = withAttempt('run_failed', { number: 3, cause: 'follow_up', previous: succeededBefore }, 'The CLI exited with code 1.');
    expect(describeEvent(followUp, 0).body).toBe(`Codex failed on “${followUp.run.taskTitle}” (attempt 3, follow-up from you). The CLI exited with code 1. Open the run to see why.`);
    const stranded = withAttempt('run_stranded', { number: 2, cause: 'resume', previous: { status: 'stranded', failureCode: 'stranded', exitCode: null, signal: null } });
    expect(describeEvent(stranded, 0).body).toBe(`Codex was running “${stranded.run.taskTitle}” (attempt 2, resumed by you after the console stopped) when the console stopped.`);
  });

  it('says nothing of attempts for a run’s first start or its retries, nor for one recorded before causes were', () => {
    for (const lastAttempt of [{ number: 1, cause: 'first', previous: null }, { number: 3, cause: 'retry', previous: null }, { number: 2, cause: null, previous: null }] as const) {
      const run = withAttempt('run_succeeded', lastAttempt);
      expect(describeEvent(run, 0).body).toBe(`Codex finished “${run.run.taskTitle}”. Open the run to review its changes.`);
    }
  });
});
