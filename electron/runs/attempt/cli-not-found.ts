import type { OperatorError, OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { need, type AttemptScope } from './attempt-scope';

/** The CLI is missing or not executable: an owner action (the notice says install it or set its path), no retry. */
export function cliNotFound(scope: AttemptScope, error: OperatorError): void {
  const { context, active } = scope;
  const executable = active.profile.executable ?? active.provider.executable ?? 'the CLI';
  const failure: OperatorErrorShape = {
    code: 'spawn_failed',
    reason: 'executable_not_found',
    message: `${active.provider.displayName} could not be started: ${error.message} Install ${executable}${
      active.provider.definition.ownProgram ? '' : ` (the ${active.provider.displayName} CLI)`
    } or set the agent's executable path.`,
    actionUrl: actionRoute({ kind: 'agent-executable-path', agentId: active.agentId }),
  };
  need(scope.attempt, 'attempt').finish(
    { status: 'failed', failureCode: 'spawn_failed', exitCode: null, signal: null, retryAt: null, endedAt: context.now() },
    { failure, ownerAction: true },
  );
  context.end(active.runId, 'failed', failure);
}
