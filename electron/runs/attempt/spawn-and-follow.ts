import { followTimeline } from './attempt-timeline';
import { need, type AttemptScope } from './attempt-scope';
import { spawnConfined, type ConfinedProcess } from './confined-process';

/**
 * Step 6: where and how the attempt's process runs. Here: the confined launch spawned on a local PTY,
 * findable again before the run is awaited (its process and, where the CLI names one up front, its
 * session), its output into the ledger and to viewers, its JSON stream into the timeline; then its
 * exit and all of its output are awaited, and its confinement undone. A run elsewhere (another host:
 * spawn-and-follow-on-host.ts) replaces this step and shares `followAgent`.
 */
export async function spawnAndFollow(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const { context, active } = scope;
  const attempt = need(scope.attempt, 'attempt');
  const spec = need(scope.spec, 'launch');
  const agentProcess = await spawnConfined({ context, active, attemptId: attempt.id, signal }, need(scope.launch, 'confined launch'), spec.cwd);
  await followAgent(scope, agentProcess);
}

/** The agent's process, wherever it runs: its output followed from the run's current end, the run running, then its end awaited. */
export async function followAgent(scope: AttemptScope, agentProcess: ConfinedProcess, options: { takenUp?: boolean } = {}): Promise<void> {
  const { context, active } = scope;
  const attempt = need(scope.attempt, 'attempt');
  try {
    // An agent taken up again (a previous console started it) started long ago: nothing to tell.
    if (!options.takenUp) context.lifecycle.emit('attemptProgressed', { ...attempt.parties, milestone: 'agent_started' });
    if (active.sessionId) context.saveSessionLocator(active);

    const agentFrom = context.ledger.output.totalBytes(active.runId);
    scope.agentFrom = agentFrom;
    const pipeline = agentProcess.follow({ startOffset: agentFrom });
    const eventFormat = active.profile.eventFormat ?? active.provider.definition.events.format;
    followTimeline(context, active, pipeline, eventFormat === 'text' ? null : eventFormat);

    // A setup command that ran first started the run: its start stays the run's.
    if (!options.takenUp) context.transition(active.runId, 'running', { startedAt: context.ledger.runs.row(active.runId)?.started_at ?? context.now() });
    context.log.info(options.takenUp ? 'run attempt taken up again' : 'run attempt started', { runId: active.runId, attempt: active.attemptNumber, pid: agentProcess.pid });
  } catch (error) {
    // The attempt fails (attempt-steps.ts ends it and its run); its process does not live on unwatched.
    await agentProcess.abandon();
    throw error;
  }
  scope.agentEnd = await agentProcess.finished();
}
