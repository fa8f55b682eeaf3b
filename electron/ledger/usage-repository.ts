import type { BillingKind, TokenCounts, UsageCounting } from '../../shared/usage';
import type { LedgerDb } from './database-handle';

/**
 * Tokens of one model, billed one way: what the ledger sums for a budget, and the unit the price book
 * (usage/price-book.ts) estimates a cost for.
 */
export interface PricedTokens {
  /** The price table's provider (openai, anthropic, google, ...). */
  priceProvider: string;
  model: string;
  billing: BillingKind;
  tokens: TokenCounts;
}

/** One attempt's usage as the ledger holds it (`usage_records`, migration 11). */
export interface UsageRecord {
  attemptId: string;
  runId: string;
  attemptNumber: number;
  taskId: string;
  taskTitle: string;
  projectId: string;
  agentId: string;
  agentName: string;
  connectionId: string | null;
  connectionName: string | null;
  providerId: string;
  priceProvider: string;
  model: string;
  billing: BillingKind;
  counting: UsageCounting;
  /** When the attempt started (ms): the day it counts in. */
  startedAt: number;
  updatedAt: number;
  reports: number;
  tokens: TokenCounts;
  /** The CLI's native session, for `per_session` counting. */
  sessionId: string | null;
  /** The session's total as the CLI last reported it in this attempt (`per_session` only). */
  sessionTotal: TokenCounts | null;
}

interface UsageRow {
  attempt_id: string;
  run_id: string;
  attempt_number: number;
  task_id: string;
  task_title: string;
  project_id: string;
  agent_id: string;
  agent_name: string;
  connection_id: string | null;
  connection_name: string | null;
  provider_id: string;
  price_provider: string;
  model: string;
  billing: BillingKind;
  counting: UsageCounting;
  started_at: number;
  updated_at: number;
  reports: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  session_id: string | null;
  session_total_json: string | null;
}

/** Whose usage a budget counts. */
export interface UsageTarget {
  scope: 'connection' | 'agent';
  targetId: string;
}

function fromRow(row: UsageRow): UsageRecord {
  return {
    attemptId: row.attempt_id,
    runId: row.run_id,
    attemptNumber: row.attempt_number,
    taskId: row.task_id,
    taskTitle: row.task_title,
    projectId: row.project_id,
    agentId: row.agent_id,
    agentName: row.agent_name,
    connectionId: row.connection_id,
    connectionName: row.connection_name,
    providerId: row.provider_id,
    priceProvider: row.price_provider,
    model: row.model,
    billing: row.billing,
    counting: row.counting,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    reports: row.reports,
    tokens: { input: row.input_tokens, output: row.output_tokens, cachedInput: row.cached_input_tokens, reasoning: row.reasoning_tokens },
    sessionId: row.session_id,
    sessionTotal: parseTokens(row.session_total_json),
  };
}

function parseTokens(json: string | null): TokenCounts | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as Partial<TokenCounts>;
    const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);
    return { input: count(value.input), output: count(value.output), cachedInput: count(value.cachedInput), reasoning: count(value.reasoning) };
  } catch {
    return null;
  }
}

/**
 * Usage per attempt: written as the CLI reports it (each write replaces the attempt's totals so far),
 * read per run, per budget target and period, and per date range for the Usage page.
 */
export class UsageRepository {
  constructor(private readonly db: LedgerDb) {}

  /** Saves an attempt's usage so far (inserting its row on the first report). */
  record(record: UsageRecord): void {
    this.db
      .prepare(
        `INSERT INTO usage_records (attempt_id, run_id, attempt_number, task_id, task_title, project_id, agent_id, agent_name,
           connection_id, connection_name, provider_id, price_provider, model, billing, counting, started_at, updated_at, reports,
           input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, session_id, session_total_json)
         VALUES (@attemptId, @runId, @attemptNumber, @taskId, @taskTitle, @projectId, @agentId, @agentName,
           @connectionId, @connectionName, @providerId, @priceProvider, @model, @billing, @counting, @startedAt, @updatedAt, @reports,
           @input, @output, @cachedInput, @reasoning, @sessionId, @sessionTotalJson)
         ON CONFLICT (attempt_id) DO UPDATE SET updated_at = excluded.updated_at, reports = excluded.reports,
           input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
           cached_input_tokens = excluded.cached_input_tokens, reasoning_tokens = excluded.reasoning_tokens,
           session_id = excluded.session_id, session_total_json = excluded.session_total_json, counting = excluded.counting`,
      )
      .run({
        ...record,
        ...record.tokens,
        sessionTotalJson: record.sessionTotal ? JSON.stringify(record.sessionTotal) : null,
      });
  }

  /** A run's attempts that reported usage, in order. */
  ofRun(runId: string): UsageRecord[] {
    return (this.db.prepare('SELECT * FROM usage_records WHERE run_id = ? ORDER BY attempt_number').all(runId) as UsageRow[]).map(fromRow);
  }

  /**
   * The session total an earlier attempt of the run left for this session (the latest such attempt
   * before `attemptNumber`), or null when none did: what a resumed turn's cumulative report starts from.
   */
  sessionTotalBefore(runId: string, sessionId: string, attemptNumber: number): TokenCounts | null {
    const row = this.db
      .prepare(
        `SELECT session_total_json FROM usage_records
         WHERE run_id = ? AND session_id = ? AND attempt_number < ? AND session_total_json IS NOT NULL
         ORDER BY attempt_number DESC LIMIT 1`,
      )
      .get(runId, sessionId, attemptNumber) as { session_total_json: string } | undefined;
    return parseTokens(row?.session_total_json ?? null);
  }

  /** A budget target's usage in attempts started at or after `since`, by model and billing: what the budget has spent. */
  spentSince(target: UsageTarget, since: number): PricedTokens[] {
    const column = target.scope === 'connection' ? 'connection_id' : 'agent_id';
    const rows = this.db
      .prepare(
        `SELECT price_provider, model, billing, sum(input_tokens) AS input, sum(output_tokens) AS output,
           sum(cached_input_tokens) AS cached, sum(reasoning_tokens) AS reasoning
         FROM usage_records WHERE ${column} = ? AND started_at >= ?
         GROUP BY price_provider, model, billing`,
      )
      .all(target.targetId, since) as Array<{ price_provider: string; model: string; billing: BillingKind; input: number; output: number; cached: number; reasoning: number }>;
    return rows.map((row) => ({
      priceProvider: row.price_provider,
      model: row.model,
      billing: row.billing,
      tokens: { input: row.input, output: row.output, cachedInput: row.cached, reasoning: row.reasoning },
    }));
  }

  /** Attempts started in [from, to) (ms), optionally of one project's runs, oldest first. */
  inRange(from: number, to: number, projectId?: string): UsageRecord[] {
    const rows = projectId
      ? this.db.prepare('SELECT * FROM usage_records WHERE started_at >= ? AND started_at < ? AND project_id = ? ORDER BY started_at, attempt_id').all(from, to, projectId)
      : this.db.prepare('SELECT * FROM usage_records WHERE started_at >= ? AND started_at < ? ORDER BY started_at, attempt_id').all(from, to);
    return (rows as UsageRow[]).map(fromRow);
  }
}
