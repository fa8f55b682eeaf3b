import type { Attempt } from '../../shared/entities';
import type { Ledger } from '../ledger/ledger';
import type { ProviderCatalog } from '../providers/catalog';
import type { AttemptStartAt } from '../pty/output-fanout';
import { savedAdmission } from './admission';

type AttemptLedger = Pick<Ledger, 'runs' | 'output'>;

/** The run's attempts in order, each with where its output starts (derived from the output's chunks). */
export function attemptsWithOutput(ledger: AttemptLedger, runId: string): Attempt[] {
  const records = ledger.runs.attempts(runId);
  const firsts = ledger.output.firstOffsets(runId, records.map((record) => record.id));
  return records.map(({ id: _id, ...attempt }, index) => ({ ...attempt, outputOffset: firsts[index] ?? null }));
}

/**
 * Where each of the run's attempts begins in its byte stream. An attempt that produced output begins
 * at its first byte. One that produced none (it failed before printing, or has not printed yet)
 * begins where the next attempt's output does, or at the end of the output so far: the run service
 * starts an attempt only once the previous one's bytes are all in the ledger, so nothing of another
 * attempt lies between. Such an attempt still gets its own separator: the count stays honest.
 */
export function attemptStarts(ledger: AttemptLedger, catalog: ProviderCatalog, runId: string): AttemptStartAt[] {
  const attempts = attemptsWithOutput(ledger, runId);
  if (attempts.length === 0) return [];
  const admission = savedAdmission(ledger.runs.row(runId)?.admission_json ?? null);
  const profile = admission ? catalog.findProvider(admission.providerId)?.profiles.find((entry) => entry.id === admission.profileId) : undefined;
  const maxAttempts = profile?.maxAttempts ?? null;
  const offsets: number[] = [];
  let next = ledger.output.totalBytes(runId);
  for (let index = attempts.length - 1; index >= 0; index -= 1) {
    next = attempts[index]!.outputOffset ?? next;
    offsets[index] = next;
  }
  return attempts.map((attempt, index) => ({
    offset: offsets[index]!,
    attempt,
    previous: attempts[index - 1] ?? null,
    maxAttempts,
  }));
}
