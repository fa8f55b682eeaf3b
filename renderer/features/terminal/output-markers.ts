import { attemptCauseText } from '../../../shared/attempt-cause';
import type { AttemptStart } from '../../../shared/entities';
import { formatDuration } from '../../ui/format';

/** Lines the console writes into a run's terminal itself, dimmed so they never pass for the CLI's output. */

const dim = (text: string) => `\r\n\x1b[2m${text}\x1b[0m\r\n`;

/** How long after the previous attempt ended: `< 1 s later`, `3 s later`, `2m 05s later`. */
function gapText(previousEnd: string | null, start: string | null): string | null {
  if (!previousEnd || !start) return null;
  const gap = Date.parse(start) - Date.parse(previousEnd);
  if (Number.isNaN(gap) || gap < 0) return null;
  if (gap < 1000) return '< 1 s later';
  return gap < 60_000 ? `${Math.round(gap / 1000)} s later` : `${formatDuration(gap)} later`;
}

/**
 * The words of the line between two attempts: why it started, as the ledger recorded it, which
 * attempt it is, and how long after the previous one ended.
 * `── retry after process_exit (exit code 1) · attempt 2 of 3 · 3 s later ──`,
 * `── resumed by you · attempt 2 · 5m 10s later ──`. "of N" is the retry policy's count: only a retry
 * is numbered against it (and not past it); a resume is the operator's, with no policy and no
 * "after" the previous outcome. An attempt whose cause was never recorded says only its number.
 */
export function attemptSeparatorText({ attempt, previous, maxAttempts }: AttemptStart): string {
  const counted = attempt.cause === 'retry' && maxAttempts !== null && attempt.number <= maxAttempts;
  const count = counted ? `attempt ${attempt.number} of ${maxAttempts}` : `attempt ${attempt.number}`;
  const parts = [attemptCauseText(attempt, previous), count, gapText(previous?.endedAt ?? null, attempt.startedAt)].filter((part) => part !== null);
  return `── ${parts.join(' · ')} ──`;
}

/** Where a new attempt of the run begins: its own dimmed line, drawn by the console, never in the ledger. */
export function attemptSeparator(start: AttemptStart): string {
  return dim(attemptSeparatorText(start));
}

/** Where the viewer fell behind and was skipped forward. The bytes are in the ledger, not lost. */
export function skippedMarker(skippedBytes: number): string {
  return dim(`… skipped ${skippedBytes} bytes (the full output is kept; Load full output shows it) …`);
}

/** At the top of a tail replay: the output starts earlier than what is shown. */
export function earlierOutputMarker(fromOffset: number): string {
  return `\x1b[2m… ${fromOffset} earlier bytes not shown (Load full output shows them) …\x1b[0m\r\n`;
}

/** A byte count for people: `512 B`, `12.3 KB`, `4.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/**
 * Keystrokes and pastes go to the PTY in pieces the contract accepts, never splitting a character
 * made of two UTF-16 units (an emoji, say) across two pieces.
 */
export function chunkInput(data: string, maxLength = 16 * 1024): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < data.length) {
    let end = Math.min(start + maxLength, data.length);
    if (end < data.length) {
      const last = data.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    }
    chunks.push(data.slice(start, end));
    start = end;
  }
  return chunks;
}
