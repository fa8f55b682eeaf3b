import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { addTokens, noTokens, type BillingKind, type RunUsage, type UsageQuery, type UsageReport } from '../../shared/usage';
import type { Ledger } from '../ledger/ledger';
import type { UsageRecord } from '../ledger/usage-repository';
import { savedAdmission } from '../ledger/run-admission';
import type { PricedTokens } from '../ledger/usage-repository';
import { estimateCost } from './price-book';
import type { PriceTableStore } from './price-table-store';
import { billingOf } from './run-billing';
import { buildUsageReport } from './usage-report';

function priced(record: UsageRecord): PricedTokens {
  return { priceProvider: record.priceProvider, model: record.model, billing: record.billing, tokens: record.tokens };
}

/**
 * A run's usage as the run detail shows it: each attempt's recorded tokens (usage-recorder.ts) and
 * what they are estimated to cost at today's price table, and the run's total. Costs are worked out
 * when asked, not stored, so an edited price changes every estimate at once.
 */
export class UsageService {
  constructor(
    private readonly ledger: Ledger,
    private readonly prices: PriceTableStore,
  ) {}

  runUsage(runId: string): RunUsage {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    const records = this.ledger.usage.ofRun(runId);
    const table = this.prices.current();
    const billed = records.at(-1) ?? this.unreported(row.admission_json, row.agent_id);
    return {
      reported: records.length > 0,
      billing: billed.billing,
      providerId: billed.providerId,
      model: billed.model,
      attempts: records.map((record) => ({
        attemptNumber: record.attemptNumber,
        tokens: record.tokens,
        cost: estimateCost(table, [priced(record)]),
        counting: record.counting,
        reports: record.reports,
      })),
      total: records.reduce((total, record) => addTokens(total, record.tokens), noTokens),
      cost: estimateCost(table, records.map(priced)),
    };
  }

  /** The Usage page: tokens and estimated cost over the days asked, grouped, at today's price table. */
  report(query: UsageQuery): UsageReport {
    return buildUsageReport(this.ledger, this.prices.current(), query);
  }

  /**
   * How a run that reported nothing would have been billed: by its admission, or, for a run refused
   * before it had one, by its agent as it is now.
   */
  private unreported(admissionJson: string | null, agentId: string): { billing: BillingKind; providerId: string; model: string } {
    const admission = savedAdmission(admissionJson);
    if (admission) return { billing: billingOf(admission.connection), providerId: admission.providerId, model: admission.model };
    const agent = this.ledger.agents.get(agentId);
    const connection = agent?.connectionId ? this.ledger.connections.get(agent.connectionId) : undefined;
    return {
      billing: agent?.homeMode === 'isolated' && connection ? billingOf(connection) : 'operator_login',
      providerId: agent?.providerId ?? '',
      model: agent?.model ?? '',
    };
  }
}
