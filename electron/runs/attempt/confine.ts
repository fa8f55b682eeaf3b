import { need, type AttemptScope } from './attempt-scope';
import { confineProcess } from './confined-process';

/**
 * Step 5: the agent's launch, confined as the setup command was (the shared confinement), with the
 * connection's base URL and its delivered key. Undone at once if a Stop came while it was made.
 */
export async function confine(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const { context, active } = scope;
  const credential = need(scope.credential, 'credential');
  scope.launch = await confineProcess(
    { context, active, attemptId: need(scope.attempt, 'attempt').id, signal },
    {
      ...need(scope.confinement, 'confinement'),
      spec: need(scope.spec, 'launch'),
      connectionBaseUrl: credential?.baseUrl ?? null,
      credential: credential?.delivery ?? null,
    },
  );
}
