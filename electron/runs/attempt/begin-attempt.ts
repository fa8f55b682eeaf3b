import { homedir } from 'node:os';
import { modelArgumentFor } from '../../providers/credential-delivery';
import { newId } from '../../ledger/ids';
import { buildWorkerPrompt } from '../worker-prompt';
import type { EgressDecisionNote } from '../../sandbox/egress-proxy';
import type { ActiveRun, RunContext } from '../run-context';
import { RunAttempt } from './attempt-record';
import { need, type AttemptScope } from './attempt-scope';

/**
 * Step 2: what the CLI is asked to do (its launch, built from its definition: the prompt or the
 * operator's follow-up, the session it starts or resumes), the attempt's record (its start is told
 * on the lifecycle bus: viewers mark where its bytes begin), and the one confinement the setup
 * command and the agent share. Nothing here waits, so nothing here is stopped.
 */
export function beginAttempt(scope: AttemptScope): Promise<void> {
  const { context, active, request } = scope;
  const { options: service } = context;
  const task = need(scope.task, 'task');
  const taskRoot = need(scope.taskRoot, 'task root');
  const setup = need(scope.setup, 'setup');
  const { definition } = active.provider;
  // Pi through a connection's base URL addresses the model by the console's provider entry.
  const deliveredConnection =
    active.admission.homeMode === 'isolated' && active.admission.connection ? (service.connections.state(active.admission.connection.id) ?? null) : null;
  const spec = definition.launch.build(active.provider, {
    task,
    agent: { model: modelArgumentFor(definition, deliveredConnection, active.admission.model), profile: active.profile },
    taskRoot,
    prompt: request.followUp ?? buildWorkerPrompt(task),
    session: request.session,
    environmentKind: active.admission.environmentKind,
  });
  scope.spec = spec;
  active.sessionId = spec.session?.id ?? null;
  active.sessionDir = spec.session?.dir ?? null;
  active.sessionSource = spec.session?.source ?? null;

  active.attemptNumber += 1;
  const attemptId = newId('att');
  active.attemptId = attemptId;
  active.attemptEvents = [];
  // Viewers hear where it begins before any of its bytes, so the separator lands in place (the
  // previous attempt's bytes are all in the ledger by now: its end was awaited before this).
  const attempt = RunAttempt.start(
    context,
    {
      runId: active.runId,
      attemptId,
      attemptNumber: active.attemptNumber,
      agent: { id: active.agentId, name: active.admission.agentName },
      providerName: active.provider.displayName,
      task: { id: task.id, title: task.title },
    },
    { cause: request.cause, startedAt: context.now() },
    { admission: active.admission, provider: active.provider, resumed: request.session.mode === 'resume' },
  );
  active.attempt = attempt;
  scope.attempt = attempt;

  // One confinement for the setup command and the agent: the same sandbox, network rules, egress
  // allow-list and variables. Anything a launch is confined by belongs here, so neither can differ.
  scope.confinement = {
    taskRoot,
    provider: active.provider,
    profile: active.profile,
    admission: active.admission,
    operatorEnv: service.operatorEnv ?? process.env,
    operatorHome: service.operatorHome ?? homedir(),
    dataDir: service.dataDir,
    sandbox: scope.sandbox ?? null,
    onEgressDecision: egressDecisionRecorder(context, active, attempt),
    layerVariables: setup.env,
  };
  return Promise.resolve();
}

/**
 * Each decision of the run's egress proxy is on the attempt's timeline (the Network panel), then told
 * on the bus ("Network request blocked" is a subscriber: notices/network-notice-reactions.ts). The
 * same for an attempt's first launch and for an attempt on a host a restarted console took up again.
 */
export function egressDecisionRecorder(context: RunContext, active: ActiveRun, attempt: RunAttempt): (decision: EgressDecisionNote) => void {
  return (decision) => {
    context.note(active.runId, attempt.id, 'egress', { ...decision });
    context.lifecycle.emit('egressDecided', { ...attempt.parties, decision, environmentId: active.admission.environmentId });
  };
}
