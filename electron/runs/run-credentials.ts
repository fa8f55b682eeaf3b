import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { removeLeftoverDelivery } from '../task-root/provider-home';
import type { ConnectionService } from '../connections/connection-service';
import { credentialDelivery, effectiveBaseUrl } from '../providers/credential-delivery';
import type { Logger } from '../platform/log';
import { logRedaction } from '../platform/log-redaction';
import type { ProviderCatalog, ProviderEntry } from '../providers/catalog';
import { providerHomePath } from '../providers/launch';
import { aiConnectionRequired, savedAdmission, type Admission } from './admission';
import { connectionProblem } from '../connections/connection-problem';

/**
 * The run's managed connection, ready to deliver: the secret opened (once, now) and turned into the
 * CLI's files and environment. Null for a run admitted without one. The secrets delivered are added to
 * the run's set, so its output and timeline are redacted of them.
 */
export async function credentialFor(
  run: { agentId: string; admission: Admission; provider: ProviderEntry; secrets: Set<string> },
  connections: ConnectionService,
  /** How the wait for an update in progress is awaited (the attempt runner ends it on Stop). */
  waitForIdle: (idle: Promise<void>) => Promise<void> = (idle) => idle,
) {
  const admitted = run.admission.connection;
  if (!admitted || run.admission.homeMode !== 'isolated') return null;
  // An update being written right now: wait for it, then deliver what it saved.
  await waitForIdle(connections.whenIdle(admitted.id));
  const connection = connections.state(admitted.id);
  const problem = connectionProblem(connection, { id: run.agentId, connectionId: admitted.id }, run.provider);
  if (problem || !connection) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: aiConnectionRequired,
      message: `Choose an AI connection for ${run.admission.agentName}. ${problem ?? ''}`.trim(),
      actionUrl: actionRoute({ kind: 'agent-ai-connection', agentId: run.agentId }),
    });
  }
  const delivery = credentialDelivery({
    definition: run.provider.definition,
    connection: { provider: connection.provider, method: connection.method, baseUrl: connection.baseUrl },
    secret: connections.openSecret(connection.id),
    model: run.admission.model,
  });
  for (const secret of delivery.secrets) {
    run.secrets.add(secret);
    logRedaction.remember(secret);
  }
  return {
    delivery,
    baseUrl: effectiveBaseUrl(run.provider.definition, connection),
    // What a run on an SSH host delivers instead when its model traffic goes through the tunnel (hosts/model-tunnel/).
    connection: { provider: connection.provider, method: connection.method, baseUrl: connection.baseUrl },
  };
}

/**
 * Removes the connection files a dead console left for a run: the console's own delivery folder in
 * the task root, and (for a run whose files were written into its home) the CLI's delivery layout in
 * the provider home, through real folders only. The paths come from the layout, not from anything in
 * the task root (which the agent could write).
 */
export async function removeLeftoverCredentials(
  row: { id: string; task_root: string | null; admission_json: string | null },
  catalog: ProviderCatalog,
  log: Logger,
): Promise<void> {
  const admission = savedAdmission(row.admission_json);
  if (!row.task_root || !admission?.connection || admission.homeMode !== 'isolated') return;
  const provider = catalog.findProvider(admission.providerId);
  if (!provider) return;
  const home = providerHomePath(provider.definition.home, path.join(row.task_root, 'cache'));
  if (!home) return;
  const removed = await removeLeftoverDelivery(row.task_root, home, provider.definition.delivery.files);
  log.info('removed connection files left by a previous console', { runId: row.id, files: removed });
}
