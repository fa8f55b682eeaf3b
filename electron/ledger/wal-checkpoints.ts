import type { LedgerDb } from './database-handle';
import type { OutputWriter } from './output-writer';

/** How often the ledger makes sure its WAL does not only grow (most checkpoints happen well before). */
const defaultIntervalMs = 30_000;

/**
 * Where the ledger's WAL is checkpointed: never on the main connection, whose commits run on the event
 * loop that reads the PTYs. A checkpoint copies every page committed since the last one into the
 * database file, and during a flood those are the output writer's megabytes; if a small commit of the
 * main connection (a run's status) happened to cross the threshold, the loop would stop for that copy.
 * So the output writer's connection checkpoints after its own commits (output-writer-worker.ts), and
 * now and then the writer is asked to checkpoint whatever the main connection wrote meanwhile. Before
 * any output has been written there is no writer thread, and the little the main connection wrote is
 * checkpointed in place.
 */
export function steerWalCheckpoints(db: LedgerDb, writer: OutputWriter, intervalMs = defaultIntervalMs): () => void {
  db.pragma('wal_autocheckpoint = 0');
  const timer = setInterval(() => {
    if (writer.running) {
      writer.checkpoint().catch(() => {
        // The writer is closing or its thread was lost; the next append (or close) checkpoints.
      });
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or closing: the next turn tries again.
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
