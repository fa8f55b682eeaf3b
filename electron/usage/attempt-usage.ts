import type { RunEventBus, RunEventMap } from '../events/run-events';
import { AttemptUsageRecorder, type UsageRecorderDeps } from './usage-recorder';

/**
 * Usage, as a subscriber of the run lifecycle: each attempt's usage reports (timeline entries of kind
 * `usage`) become its recorded usage (usage-recorder.ts), counted from where the run's previous
 * attempt on the same CLI session left off when the attempt resumes it. The CLI's session is the one
 * known when each report was parsed.
 */
export function subscribeAttemptUsage(lifecycle: RunEventBus, deps: UsageRecorderDeps): void {
  const started = new Map<string, RunEventMap['attemptStarted']>();
  /** Each attempt's recorder, made at its first report, and the CLI session that report came under. */
  const recorders = new Map<string, { recorder: AttemptUsageRecorder; session: { current: string | null } }>();
  lifecycle.on('attemptStarted', (attempt) => void started.set(attempt.attemptId, attempt));
  lifecycle.on('timelineEvent', ({ attemptId, event, sessionId }) => {
    if (event.kind !== 'usage') return;
    const attempt = started.get(attemptId);
    if (!attempt) return;
    let recording = recorders.get(attemptId);
    if (!recording) {
      const session = { current: sessionId };
      const recorder = new AttemptUsageRecorder(deps, {
        runId: attempt.runId,
        attemptId,
        attemptNumber: attempt.attemptNumber,
        agentId: attempt.agent.id,
        admission: attempt.admission,
        provider: attempt.provider,
        resumed: attempt.resumed,
        sessionId: () => session.current,
      });
      recording = { recorder, session };
      recorders.set(attemptId, recording);
    }
    recording.session.current = sessionId;
    recording.recorder.report(event);
  });
  lifecycle.on('attemptEnded', ({ attemptId }) => {
    started.delete(attemptId);
    recorders.delete(attemptId);
  });
}
