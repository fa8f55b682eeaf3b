import { redactionMarker, SecretRedactor } from './secret-redaction';

/**
 * What the console's log must never hold: the secrets it holds itself, and anything shaped like a
 * key. A line is redacted before it reaches any sink (stderr and the log file alike), the same way
 * run output is redacted before it reaches the ledger (platform/secret-redaction.ts): every value
 * the console has sealed or opened in this process is cut out, whoever logged it and however.
 *
 * The values are remembered for the life of the process, not of a run: a secret logged by mistake
 * after its run ended (in an error about its connection, say) must still not reach the file.
 */
export class LogRedaction {
  private readonly values = new Set<string>();
  private redactor: SecretRedactor | null = null;

  /** A secret the console holds (sealed, opened, delivered): from now on it never reaches a log line. */
  remember(secret: string): void {
    if (this.values.has(secret) || this.values.size >= maxRememberedSecrets) return;
    this.values.add(secret);
    this.redactor = null;
  }

  /** Fields whose names say they hold a secret lose their values; then the whole line is redacted. */
  fields(fields: Record<string, unknown>): Record<string, unknown> {
    return redactSecretFields(fields, 0) as Record<string, unknown>;
  }

  /** One serialized log line with every remembered secret and every key-shaped string replaced. */
  line(line: string): string {
    if (this.values.size > 0) {
      // JSON escapes some characters a secret may contain (" and \): cut the escaped form too.
      this.redactor ??= new SecretRedactor([...this.values].flatMap((value) => [value, JSON.stringify(value).slice(1, -1)]));
      line = this.redactor.redactText(line);
    }
    for (const [pattern, replacement] of keyShapes) line = line.replace(pattern, replacement);
    return line;
  }
}

/** Bounded so that a bug that opens secrets in a loop cannot grow the set without end. */
const maxRememberedSecrets = 10_000;

/**
 * Strings that look like credentials whether or not the console knows them: provider API keys,
 * tokens in headers and URLs, private keys. The character classes stop at quotes and backslashes, so
 * a match never swallows the JSON around it.
 */
const keyShapes: Array<[RegExp, string]> = [
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and most gateways' keys.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, redactionMarker],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, redactionMarker],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, redactionMarker],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, redactionMarker],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, redactionMarker],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, redactionMarker],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, redactionMarker],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, `$1 ${redactionMarker}`],
  // The browser host's per-launch token, and keys passed in a query string.
  [/([?&](?:token|access_token|api_key|apikey|key|secret)=)[^&\s"'\\]+/gi, `$1${redactionMarker}`],
];

/** Names of fields that hold a secret (`apiKey`, `authorization`, `refresh_token`), not ones that count tokens. */
const secretFieldName = /(?:secret|password|passwd|passphrase|api[_-]?key|authorization|cookie|credential|token)$/i;

function redactSecretFields(value: unknown, depth: number): unknown {
  if (depth > 8 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecretFields(item, depth + 1));
  if (value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = typeof item === 'string' && item.length > 0 && secretFieldName.test(key) ? redactionMarker : redactSecretFields(item, depth + 1);
  }
  return out;
}

/**
 * The process's one redaction: every logger the console makes uses it, and the secret keeper tells it
 * each secret it seals or opens (connections/secret-vault.ts).
 */
export const logRedaction = new LogRedaction();
