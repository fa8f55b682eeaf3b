import { displayHost } from '../../shared/allowed-hosts';
import type { RunDetail, RunEvent, RunNetwork, RunSummary } from '../../shared/entities';
import { isoNow } from '../ledger/ids';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { savedAdmission } from './admission';
import { attemptsWithOutput } from './attempt-output';
import { savedRunSetup } from './attempt/attempt-setup';
import type { RunContext, SandboxProbeSource } from './run-context';
import { endedStatuses } from './run-transitions';
import type { RunWorkspace } from './run-workspace';

/** How many hosts a run's Network panel lists (the most recent); a run that asked for more says so. */
const networkHostsShown = 200;

/** What the console shows of runs: read from the ledger, and from the runs it is driving now. */
export class RunQueries {
  constructor(
    private readonly context: RunContext,
    private readonly workspace: RunWorkspace,
    private readonly sandboxProbe: SandboxProbeSource,
  ) {}

  summary(runId: string): RunSummary {
    const summary = this.context.ledger.runs.summary(runId);
    if (!summary) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    return summary;
  }

  detail(runId: string): RunDetail {
    const { context } = this;
    const { ledger } = context;
    const summary = this.summary(runId);
    const row = context.requireRun(runId);
    const agent = ledger.agents.get(row.agent_id);
    const admission = savedAdmission(row.admission_json);
    const locators = ledger.runs.locators(runId);
    const active = context.active.get(runId);
    return {
      ...summary,
      providerId: admission?.providerId ?? agent?.providerId ?? 'unknown',
      model: admission?.model ?? agent?.model ?? 'unknown',
      profileId: admission?.profileId ?? agent?.profileId ?? 'unknown',
      profileRevision: admission?.profileRevision ?? null,
      configFingerprint: row.config_fingerprint,
      environmentId: admission?.environmentId ?? agent?.environmentId ?? 'env_local',
      homeMode: admission?.homeMode ?? agent?.homeMode ?? 'preconfigured',
      cwd: row.cwd,
      taskRoot: row.task_root,
      baseRevision: row.base_revision,
      failure: row.failure_json ? (JSON.parse(row.failure_json) as OperatorErrorShape) : null,
      attempts: attemptsWithOutput(ledger, runId),
      locators,
      submission: row.submission_json ? (JSON.parse(row.submission_json) as RunDetail['submission']) : null,
      outputBytes: ledger.output.totalBytes(runId),
      archived: row.archived_at !== null,
      confinement: this.workspace.confinementOf(admission, agent, row, this.sandboxProbe.current()),
      canStop: row.status === 'queued' || active !== undefined,
      canResume: this.canResume(runId),
      // Not while its SSH host cannot be reached: nothing typed would reach the run (run-service.ts refuses it).
      canSendInput: active?.session !== null && active?.session !== undefined && !active.session.exit && summary.hostUnreachableSince === null,
      notice: context.options.notices.forRun(runId),
      connection: admission?.connection ? { id: admission.connection.id, name: admission.connection.name, provider: admission.connection.provider } : null,
      setup: savedRunSetup(row.setup_json),
    };
  }

  /** Resume would take the run up: ended (not refused), its files still there, a native session its CLI can resume. */
  canResume(runId: string): boolean {
    const { ledger } = this.context;
    const row = this.context.requireRun(runId);
    const admission = savedAdmission(row.admission_json);
    const session = ledger.runs.locators(runId).find((locator) => locator.kind === 'session');
    const provider = this.context.options.catalog.findProvider(admission?.providerId ?? ledger.agents.get(row.agent_id)?.providerId ?? '');
    return (
      endedStatuses.includes(row.status) &&
      row.status !== 'refused' &&
      row.archived_at === null &&
      row.files_removed_at === null &&
      typeof session?.data.id === 'string' &&
      admission !== undefined &&
      (provider ? provider.definition.launch.resumable : false)
    );
  }

  /**
   * The run's Network panel. Hosts are shown in display form again here: decisions recorded before
   * the proxy wrote them that way are the agent's raw text.
   */
  network(runId: string): RunNetwork {
    const row = this.context.requireRun(runId);
    const admission = savedAdmission(row.admission_json);
    const agent = this.context.ledger.agents.get(row.agent_id);
    const confinement = this.workspace.confinementOf(admission, agent, row, this.sandboxProbe.current());
    const hosts = this.context.ledger.runs.egressHosts(runId, networkHostsShown);
    return {
      environmentKind: confinement.environmentKind,
      networkMode: confinement.network,
      observed: confinement.environmentKind === 'sandboxed' && confinement.network === 'provider-only',
      hosts: hosts.slice(0, networkHostsShown).map((entry) => ({
        host: displayHost(entry.host),
        port: entry.port,
        allowed: entry.allowed,
        count: entry.count,
        firstAt: isoNow(entry.firstAt),
        lastAt: isoNow(entry.lastAt),
      })),
      truncated: hosts.length > networkHostsShown,
    };
  }

  events(runId: string, afterId: number, limit: number): { events: RunEvent[]; lastId: number } {
    this.context.requireRun(runId);
    const events = this.context.ledger.runs.events(runId, afterId, limit);
    return { events, lastId: events.at(-1)?.id ?? afterId };
  }
}

