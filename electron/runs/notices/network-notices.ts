import { formatAllowedHost } from '../../../shared/allowed-hosts';
import type { Environment } from '../../../shared/entities';
import { actionRoute } from '../../../shared/routes';
import { endpointsFromAllowedHosts, isEgressAllowed } from '../../sandbox/egress-allow-list';
import type { Ledger } from '../../ledger/ledger';
import type { Logger } from '../../platform/log';
import type { NoticeService } from '../../notices/notice-service';

export const networkBlockedKind = 'network_blocked';

export interface BlockedRequest {
  runId: string;
  agent: { id: string; name: string };
  task: { id: string; title: string };
  /** The environment the run was admitted in. */
  environmentId: string;
  /** In display form (the proxy's), already checked to be a host name or address. */
  host: string;
  port: number;
}

/**
 * "Network request blocked" (issue 12): the first host a run's egress proxy refused raises a notice
 * naming the run, the host and the environment, whose link opens the environment's Allowed hosts
 * with that host filled in. One notice per environment and host while it is open: the same host
 * refused again (by this run, retrying, or by later runs) joins it rather than piling up. Once the
 * environment lets the host through, it resolves, saying so, and offers Run again.
 */
export class NetworkNotices {
  /** Runs that already raised (or joined) their one notice: a run retrying a host asks the ledger once. */
  private readonly raisedFor = new Set<string>();

  constructor(
    private readonly ledger: Ledger,
    private readonly notices: NoticeService,
    private readonly log: Logger,
  ) {}

  /** A request the proxy refused. Raises the run's notice if it is the run's first refused host. */
  blocked(request: BlockedRequest): void {
    if (this.raisedFor.has(request.runId)) return;
    if (this.notices.runHasNotice(request.runId, networkBlockedKind)) {
      this.raisedFor.add(request.runId);
      return;
    }
    const environment = this.ledger.environments.get(request.environmentId);
    // Allowed since this run was admitted (it keeps its own list): nothing left for the operator to do.
    if (!environment || environment.deleted || allowsHost(environment, request.host, request.port)) return;
    this.raisedFor.add(request.runId);
    const entry = formatAllowedHost({ host: request.host, port: request.port });
    const notice = this.notices.raise({
      kind: networkBlockedKind,
      severity: 'warning',
      title: 'Network request blocked',
      message: blockedMessage(entry, environment.name, [{ task: request.task.title, agent: request.agent.name }]),
      actionUrl: actionRoute({ kind: 'settings-environment', environmentId: environment.id, allowHost: entry }),
      actionLabel: `Allow ${entry}`,
      code: networkBlockedKind,
      reason: 'host_not_allowed',
      runId: request.runId,
      agentId: request.agent.id,
      taskId: request.task.id,
      environmentId: environment.id,
      subject: { host: request.host, port: request.port },
      dedupeKey: `${networkBlockedKind}:${environment.id}:${entry}`,
    });
    this.log.info('network request blocked', { runId: request.runId, noticeId: notice.id, environmentId: environment.id, host: entry });
    // A later run joined the open notice: it names each run it stands for.
    if (notice.runIds.length > 1) {
      const runs = notice.runIds.flatMap((runId) => {
        const row = this.ledger.runs.row(runId);
        const task = row ? this.ledger.tasks.get(row.task_id) : undefined;
        const agent = row ? this.ledger.agents.get(row.agent_id) : undefined;
        return task && agent ? [{ task: task.title, agent: agent.name }] : [];
      });
      this.notices.revise(notice.id, { message: blockedMessage(entry, environment.name, runs), actionUrl: notice.actionUrl, actionLabel: notice.actionLabel });
    }
  }

  /**
   * After an environment changed: its open notices whose host it now lets through resolve (saying
   * what did it), and offer Run again; a deleted environment's are dismissed, having nothing left to fix.
   */
  review(environmentId: string): void {
    const environment = this.ledger.environments.get(environmentId);
    for (const { notice, subject } of this.notices.openForEnvironment(environmentId, networkBlockedKind)) {
      if (!environment || environment.deleted) {
        this.notices.dismiss(notice.id);
        continue;
      }
      const host = typeof subject.host === 'string' ? subject.host : '';
      const port = typeof subject.port === 'number' ? subject.port : 0;
      const entry = formatAllowedHost({ host, port });
      let resolution: string | null = null;
      if (environment.kind === 'local') resolution = `The ${environment.name} environment no longer sandboxes its runs: they reach what you can, ${entry} included.`;
      else if (environment.networkMode === 'open') resolution = `The ${environment.name} environment’s network is open now: its runs reach any host, ${entry} included.`;
      else if (environment.networkMode === 'provider-only' && allowsHost(environment, host, port)) resolution = `${entry} is allowed in the ${environment.name} environment now.`;
      if (resolution) {
        this.notices.resolve(notice.id, resolution);
        this.log.info('notice resolved: its host is allowed', { noticeId: notice.id, environmentId, host: entry });
      }
    }
  }
}

function allowsHost(environment: Environment, host: string, port: number): boolean {
  return environment.kind === 'sandboxed' && environment.networkMode === 'provider-only' && isEgressAllowed(endpointsFromAllowedHosts(environment.allowedHosts), host, port);
}

function blockedMessage(entry: string, environmentName: string, runs: Array<{ task: string; agent: string }>): string {
  const first = runs[0];
  const who = first ? `The run of “${first.task}” (agent ${first.agent})` : 'A run';
  const more = runs.length > 1 ? ` ${runs.length - 1} later ${runs.length === 2 ? 'run was' : 'runs were'} refused it too.` : '';
  return (
    `${who} asked to reach ${entry}, which the ${environmentName} environment does not allow: its egress proxy refused the request.${more} ` +
    `Allow ${entry} in ${environmentName} if the agent needs it, then run the task again.`
  );
}
