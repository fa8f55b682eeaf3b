import type { Attempt } from '../../shared/entities';
import type { Ledger } from '../ledger/ledger';

type AttemptLedger = Pick<Ledger, 'runs' | 'output'>;

/** The run's attempts in order, each with where its output starts (derived from the output's chunks). */
export function attemptsWithOutput(ledger: AttemptLedger, runId: string): Attempt[] {
  const records = ledger.runs.attempts(runId);
  const firsts = ledger.output.firstOffsets(runId, records.map((record) => record.id));
  return records.map(({ id: _id, ...attempt }, index) => ({ ...attempt, outputOffset: firsts[index] ?? null }));
}

