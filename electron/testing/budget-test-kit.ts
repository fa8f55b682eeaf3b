import { randomUUID } from 'node:crypto';
import type { BillingKind } from '../../shared/usage';
import type { RunTestBed } from './run-test-kit';

/**
 * Usage as the usage recorder writes it (one row per attempt, `ledger.usage.record`): what budgets
 * count. The budget tests write rows directly, so what a budget has spent is exactly what a test says.
 */
export interface UsageFor {
  agentId: string;
  agentName?: string;
  connectionId?: string | null;
  connectionName?: string | null;
  /** When the attempt started (ms): the period it counts in. */
  at: number;
  input: number;
  output: number;
  cachedInput?: number;
  priceProvider?: string;
  model?: string;
  billing?: BillingKind;
  /** The run and attempt the usage belongs to; default a run of its own that is not in the ledger. */
  runId?: string;
  attemptId?: string;
  attemptNumber?: number;
}

export function recordUsage(b: Pick<RunTestBed, 'core' | 'projectId'>, usage: UsageFor): void {
  b.core.ledger.usage.record({
    attemptId: usage.attemptId ?? `att_${randomUUID().replaceAll('-', '')}`,
    runId: usage.runId ?? `run_${randomUUID().replaceAll('-', '')}`,
    attemptNumber: usage.attemptNumber ?? 1,
    taskId: 'tsk_elsewhere',
    taskTitle: 'Earlier work',
    projectId: b.projectId,
    agentId: usage.agentId,
    agentName: usage.agentName ?? 'an agent',
    connectionId: usage.connectionId ?? null,
    connectionName: usage.connectionName ?? null,
    providerId: 'command',
    priceProvider: usage.priceProvider ?? 'openai',
    model: usage.model ?? 'gpt-5',
    billing: usage.billing ?? 'api_key',
    counting: 'per_invocation',
    startedAt: usage.at,
    updatedAt: usage.at,
    reports: 1,
    tokens: { input: usage.input, output: usage.output, cachedInput: usage.cachedInput ?? 0, reasoning: 0 },
    sessionId: null,
    sessionTotal: null,
  });
}
