/** Lines the console writes into a run's terminal itself, dimmed so they never pass for the CLI's output. */

const dim = (text: string) => `\r\n\x1b[2m${text}\x1b[0m\r\n`;

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
