/**
 * Every secret the console delivers to a run is cut out of what the run produces before it reaches
 * the ledger, a viewer or the timeline (DESIGN.md section 6). The agent can print its key (a debug
 * line, an error that echoes the request, `env`), and the ledger and the renderer must never see it.
 *
 * PTY output arrives in reads of arbitrary size, so a secret can straddle two reads. The streaming
 * redactor therefore holds back the end of a read when it could be the beginning of a secret, and
 * decides once the next read (or the end of output) shows whether it was. Only a tail that actually
 * matches the start of a secret is held, so ordinary output (a prompt waiting for input) is never
 * delayed. Redaction changes byte counts; offsets are assigned after it, so the ledger and viewers
 * agree on one (redacted) byte stream.
 */

export const redactionMarker = '[redacted]';

/**
 * Shorter values are not redacted: cutting every "abc" out of a run's output would wreck it, and a
 * value that short is not a secret worth the name. Real keys and tokens are dozens of characters.
 */
export const minRedactedLength = 4;

export interface StreamRedactor {
  /** The bytes that are safe to pass on now (possibly fewer than were given). */
  push(bytes: Buffer): Buffer;
  /** At the end of output: whatever was held back (it turned out not to be a secret). */
  flush(): Buffer;
}

export class SecretRedactor implements StreamRedactor {
  private readonly patterns: Buffer[];
  private readonly texts: string[];
  private readonly marker: Buffer;
  private held: Buffer = Buffer.alloc(0);

  constructor(secrets: Iterable<string>, marker = redactionMarker) {
    const unique = [...new Set([...secrets].filter((secret) => secret.length >= minRedactedLength))];
    // Longest first, so a secret that contains another is cut as a whole.
    unique.sort((a, b) => b.length - a.length);
    this.texts = unique;
    this.patterns = unique.map((secret) => Buffer.from(secret, 'utf8'));
    this.marker = Buffer.from(marker, 'utf8');
  }

  get active(): boolean {
    return this.patterns.length > 0;
  }

  push(bytes: Buffer): Buffer {
    if (!this.active) return bytes;
    const data = this.held.length ? Buffer.concat([this.held, bytes]) : bytes;
    const { out, rest } = this.replaceAll(data);
    const hold = this.partialSecretSuffix(rest);
    this.held = Buffer.from(rest.subarray(rest.length - hold));
    out.push(rest.subarray(0, rest.length - hold));
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  flush(): Buffer {
    const tail = this.held;
    this.held = Buffer.alloc(0);
    return tail;
  }

  /** A whole string (a timeline entry, a message): every secret in it replaced. */
  redactText(text: string): string {
    let result = text;
    for (const secret of this.texts) if (result.includes(secret)) result = result.split(secret).join(redactionMarker);
    return result;
  }

  /** A JSON-like value with every string in it redacted (keys too). */
  redactValue<T>(value: T): T {
    if (!this.active) return value;
    return this.redactDeep(value) as T;
  }

  private redactDeep(value: unknown): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (Array.isArray(value)) return value.map((item) => this.redactDeep(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.redactText(key), this.redactDeep(item)]));
    }
    return value;
  }

  /** Replaces every whole secret in `data`; returns the redacted parts and the unmatched rest. */
  private replaceAll(data: Buffer): { out: Buffer[]; rest: Buffer } {
    const out: Buffer[] = [];
    let from = 0;
    for (;;) {
      let at = -1;
      let length = 0;
      for (const pattern of this.patterns) {
        const found = data.indexOf(pattern, from);
        // The earliest match wins; at the same place, the longest (patterns are longest first).
        if (found !== -1 && (at === -1 || found < at)) {
          at = found;
          length = pattern.length;
        }
      }
      if (at === -1) break;
      out.push(data.subarray(from, at), this.marker);
      from = at + length;
    }
    return { out, rest: data.subarray(from) };
  }

  /** How many bytes at the end of `rest` could be the start of a secret that the next read completes. */
  private partialSecretSuffix(rest: Buffer): number {
    let longest = 0;
    for (const pattern of this.patterns) {
      const most = Math.min(rest.length, pattern.length - 1);
      for (let size = most; size > longest; size -= 1) {
        if (rest[rest.length - size] !== pattern[0]) continue;
        if (rest.subarray(rest.length - size).equals(pattern.subarray(0, size))) {
          longest = size;
          break;
        }
      }
    }
    return longest;
  }
}
