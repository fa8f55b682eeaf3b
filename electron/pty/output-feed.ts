import type { OutputSlice } from '../ledger/output-repository';

/** One batch of a run's PTY bytes, starting at `offset` in the run's output. */
export interface OutputBatch {
  runId: string;
  offset: number;
  bytes: Uint8Array;
}

/**
 * What a live run shows its viewers: read-only. It deliberately has no way to pause or slow the run,
 * so nothing a viewer does (or fails to do) can reach the agent; only the ledger queue can pause it.
 */
export interface OutputFeed {
  readonly runId: string;
  /** The offset just past the last byte produced so far. */
  liveOffset(): number;
  /**
   * Contiguous bytes from `fromOffset`, from the ledger or from the queue of bytes not yet written to
   * it. May return fewer than `maxBytes`; returns nothing only at the live end.
   */
  read(fromOffset: number, maxBytes: number): OutputSlice;
  /** New bytes, in order and without gaps: each batch starts where the previous one ended. */
  onBatch(listener: (batch: OutputBatch) => void): () => void;
  /** The run's PTY has exited and every byte is in the ledger; no batch follows. */
  onEnd(listener: () => void): () => void;
  readonly ended: boolean;
}
