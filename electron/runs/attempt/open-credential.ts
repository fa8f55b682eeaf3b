import { credentialFor } from '../run-credentials';
import { abortable } from './abortable';
import type { AttemptScope } from './attempt-scope';

/**
 * Step 4: the connection's secret is opened here, at launch, and nowhere earlier: a refused run never
 * decrypts anything. It lives on in the delivered files (removed when the attempt ends), the child's
 * environment and the redactor. A connection being updated is waited for, unless Stop.
 */
export async function openCredential(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  scope.credential = await credentialFor(scope.active, scope.context.options.connections, (idle) => abortable(idle, signal));
}
