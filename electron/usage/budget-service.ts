import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { totalTokens, unpricedModelLabel, type Budget, type BudgetInput, type PriceTable } from '../../shared/usage';
import type { EventHub } from '../events/event-hub';
import type { StoredBudget } from '../ledger/budgets-repository';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import { setLongTimer, type LongTimer } from '../platform/long-timer';
import type { BudgetHolder, PriceTarget } from './budget-rule';
import { describeBudgetTarget, formatBudgetLimit, periodAdjective } from './budget-wording';
import { periodAround } from './calendar';
import { findPrice, priceUsage } from './price-book';
import type { PriceTableStore } from './price-table-store';

export interface BudgetServiceOptions {
  ledger: Ledger;
  events: EventHub;
  prices: PriceTableStore;
  log: Logger;
  now?: () => number;
}

/**
 * The rollover timer looks at the wall clock at least this often: a timer counts time the machine was
 * awake, so a laptop asleep over midnight would otherwise hear of the new day hours late.
 */
const clockRecheckMs = 5 * 60_000;

/** Why the budgets' verdicts may have changed: admission's notices and verifications are looked at again. */
export type BudgetChange = 'saved' | 'deleted' | 'rollover' | 'prices';

/**
 * Budgets (issue 14): a limit in estimated money or tokens per day or month on an AI connection or an
 * agent. What a budget has spent is never stored: it is what `usage_records` holds for its target in
 * the current period (local time), priced by the price table in use, so a price edit, a new period or
 * a new attempt's usage is reflected at the next look. A timer at the next period rollover of any
 * budget tells the listeners (admission's notices resolve themselves then).
 */
export class BudgetService {
  private readonly ledger: Ledger;
  private readonly now: () => number;
  private readonly listeners: Array<(change: BudgetChange) => void> = [];
  private timer: LongTimer | null = null;
  private closed = false;

  constructor(private readonly options: BudgetServiceOptions) {
    this.ledger = options.ledger;
    this.now = options.now ?? Date.now;
  }

  list(): Budget[] {
    const table = this.options.prices.current();
    return this.ledger.budgets.list().map((budget) => this.standing(budget, table));
  }

  get(budgetId: string): Budget {
    return this.standing(this.require(budgetId), this.options.prices.current());
  }

  /** The budgets that hold a run of this agent given this connection's key (null: none is delivered), with what they have spent now. */
  holding(holder: BudgetHolder): Budget[] {
    const stored = [...this.ledger.budgets.of('agent', holder.agentId), ...(holder.connectionId ? this.ledger.budgets.of('connection', holder.connectionId) : [])];
    if (stored.length === 0) return [];
    const table = this.options.prices.current();
    return stored.map((budget) => this.standing(budget, table));
  }

  /** Creates a budget, or changes the one `budgetId` names. One budget per scope, target, measure and period. */
  save(input: BudgetInput & { budgetId?: string | undefined }): Budget {
    const { budgetId, ...fields } = input;
    const existing = budgetId === undefined ? undefined : this.require(budgetId);
    if (fields.measure === 'tokens' && !Number.isInteger(fields.limit)) {
      throw new OperatorError({ code: 'invalid_request', message: 'A token budget counts whole tokens: enter a whole number.' });
    }
    const targetName = this.targetName(fields.scope, fields.targetId);
    const clash = this.ledger.budgets.find(fields);
    if (clash && clash.id !== budgetId) {
      throw new OperatorError({
        code: 'conflict',
        message: `${capitalize(describeBudgetTarget(fields.scope, targetName))} already has a ${periodAdjective(fields.period)} ${fields.measure === 'cost' ? 'money' : 'token'} budget. Change that one instead.`,
        actionUrl: actionRoute({ kind: 'budget', budgetId: clash.id }),
      });
    }
    const at = this.now();
    const budget: StoredBudget = {
      id: existing?.id ?? newId('bgt'),
      ...fields,
      targetName,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    };
    if (existing) this.ledger.budgets.update(budget);
    else this.ledger.budgets.insert(budget);
    this.options.log.info(existing ? 'budget changed' : 'budget created', { budgetId: budget.id, scope: budget.scope, targetId: budget.targetId, measure: budget.measure, period: budget.period });
    this.changed('saved');
    return this.get(budget.id);
  }

  delete(budgetId: string): { budgetId: string } {
    this.require(budgetId);
    this.ledger.budgets.delete(budgetId);
    this.options.log.info('budget deleted', { budgetId });
    this.changed('deleted');
    return { budgetId };
  }

  /**
   * What let a budget's refused runs start again, since `since` (when its notice was raised), in the
   * past tense for the notice's resolution.
   */
  recovery(budgetId: string, since: number): string {
    const stored = this.ledger.budgets.get(budgetId);
    if (!stored) return 'The budget was removed.';
    const budget = this.get(budgetId);
    const what = `The ${periodAdjective(budget.period)} budget for ${describeBudgetTarget(budget.scope, budget.targetName)}`;
    if (!budget.exhausted && stored.updatedAt > since) return `${what} was raised to ${formatBudgetLimit(budget.measure, budget.limit)}.`;
    if (Date.parse(budget.periodStart) > since) {
      return budget.period === 'day' ? 'A new day began: the daily budget is whole again.' : 'A new month began: the monthly budget is whole again.';
    }
    return `${what} no longer holds these runs.`;
  }

  /** The price table in use (admission asks it whether a money budget can count a run). */
  priceTable(): PriceTable {
    return this.options.prices.current();
  }

  /**
   * What let runs a money budget could not count start again, in the past tense for the notice's
   * resolution: the price of `target` (the model the notice linked to) was set, or the budget changed.
   */
  pricedRecovery(target: PriceTarget | null): string {
    if (target && findPrice(this.options.prices.current(), target.priceProvider, target.model)) {
      return `${unpricedModelLabel(target.priceProvider, target.model)} has a price now: the money budget counts its runs.`;
    }
    return 'The money budget that could not count these runs was changed or removed, or its prices were set.';
  }

  /** Called after every change that can change a verdict: a budget saved or deleted, a period rolled over, new prices. */
  onChange(listener: (change: BudgetChange) => void): void {
    this.listeners.push(listener);
  }

  /** The price table changed: money already spent is priced anew, so a budget may be spent, or whole, now. */
  pricesChanged(): void {
    if (this.ledger.budgets.list().some((budget) => budget.measure === 'cost')) this.changed('prices');
  }

  /** Arms the rollover timer (at start; it re-arms itself after every rollover and budget change). */
  start(): void {
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private changed(change: BudgetChange): void {
    this.options.events.emit('budgetsChanged', {});
    this.arm();
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.options.log.error('a budget change listener failed', { change, error: String(error) });
      }
    }
  }

  /** One timer, at the earliest end of any budget's current period (or sooner, to read the clock again). */
  private arm(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.closed) return;
    const budgets = this.ledger.budgets.list();
    if (budgets.length === 0) return;
    const now = this.now();
    const next = Math.min(...budgets.map((budget) => periodAround(budget.period, now).end));
    this.timer = setLongTimer(
      Math.min(next, now + clockRecheckMs),
      () => {
        this.timer = null;
        if (this.closed) return;
        if (this.now() < next) return this.arm();
        this.options.log.info('budget period rolled over', { at: new Date(next).toISOString() });
        this.changed('rollover');
      },
      this.now,
    );
  }

  /** A stored budget with what its current period has spent, in its measure. */
  private standing(budget: StoredBudget, table: PriceTable): Budget {
    const { start, end } = periodAround(budget.period, this.now());
    const usage = this.ledger.usage.spentSince({ scope: budget.scope, targetId: budget.targetId }, start);
    // Money is what the price table estimates; a subscription's tokens add none (the plan pays). An
    // unpriced model's tokens are not money that cost nothing: they are carried apart, and the
    // budget says it cannot count them (budgetUncounted).
    const priced = budget.measure === 'cost' ? priceUsage(table, usage) : null;
    const spent = priced ? priced.amount : usage.reduce((sum, item) => sum + totalTokens(item.tokens), 0);
    return {
      id: budget.id,
      scope: budget.scope,
      targetId: budget.targetId,
      targetName: this.currentName(budget),
      measure: budget.measure,
      period: budget.period,
      limit: budget.limit,
      spent,
      unpriced: priced ? priced.unpriced : { tokens: 0, models: [] },
      periodStart: new Date(start).toISOString(),
      resetsAt: new Date(end).toISOString(),
      exhausted: spent >= budget.limit,
      createdAt: new Date(budget.createdAt).toISOString(),
      updatedAt: new Date(budget.updatedAt).toISOString(),
    };
  }

  /** The target's name now (it may have been renamed), or what it was called when it is gone. */
  private currentName(budget: StoredBudget): string {
    if (budget.scope === 'agent') {
      // A deleted agent's name is freed for another (the ledger renames it): the budget keeps the one it had.
      const agent = this.ledger.agents.get(budget.targetId);
      return agent && !agent.deleted ? agent.name : budget.targetName;
    }
    return this.ledger.connections.get(budget.targetId)?.name ?? budget.targetName;
  }

  private targetName(scope: BudgetInput['scope'], targetId: string): string {
    if (scope === 'agent') {
      const agent = this.ledger.agents.get(targetId);
      if (!agent || agent.deleted) {
        throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console. Choose one of the agents listed.', actionUrl: actionRoute({ kind: 'agents' }) });
      }
      return agent.name;
    }
    const connection = this.ledger.connections.get(targetId);
    if (!connection) {
      throw new OperatorError({
        code: 'not_found',
        message: 'That AI connection is no longer in the console. Choose one of the connections listed.',
        actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
      });
    }
    return connection.name;
  }

  private require(budgetId: string): StoredBudget {
    const budget = this.ledger.budgets.get(budgetId);
    if (!budget) {
      throw new OperatorError({ code: 'not_found', message: 'That budget is no longer in the console: it was deleted.', actionUrl: actionRoute({ kind: 'settings-budgets' }) });
    }
    return budget;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
