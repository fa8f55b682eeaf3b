/**
 * An environment's allowed hosts (issue 12): what an operator may write in Settings → Environments,
 * how an entry reads back, the presets they can tick, and how a host a run asked for is shown.
 *
 * One place for the renderer (the form says what is wrong as it is typed), the contract (both
 * transports refuse a bad entry before the core sees it) and the egress proxy (which matches with
 * the same rules). Plain TypeScript on the platform's own URL parser: it runs in Node and the browser.
 *
 * An entry is `host` or `host:port`:
 * - a host name (`registry.npmjs.org`; a Unicode name is kept in its ASCII form, `xn--…`), an IPv4
 *   address, or an IPv6 address in brackets (`[::1]:8080`);
 * - `*.example.com` allows every name under example.com (`a.example.com`, `a.b.example.com`), not
 *   example.com itself. The suffix needs two labels at least (`*.com` is refused); it is not checked
 *   against the public suffix list, so `*.co.uk` is the operator's own call;
 * - no port means HTTPS, 443: package registries, Go's proxy and git over HTTPS all are. Plain HTTP or
 *   another port is written out (`pypi.internal:8080`);
 * - no scheme, path, query, credentials or spaces, and never a bare `*`: Open network is that.
 */

export const defaultAllowedPort = 443;
/** What the contract accepts: enough for a monorepo's registries and mirrors, not a dump of the internet. */
export const maxAllowedHosts = 200;
/** DNS's own limit on a name (RFC 1035), with room for `*.`, brackets and a port. */
const maxEntryLength = 270;
const maxHostNameLength = 253;

export interface AllowedHost {
  /** Lower case, no trailing dot, no brackets around IPv6; `*.` in front for a suffix wildcard. */
  host: string;
  port: number;
}

export type AllowedHostParse = { ok: true; entry: AllowedHost; text: string } | { ok: false; problem: string };

const label = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const ipv4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A DNS name of letters, digits, hyphens (and underscores, which some internal names have), dot-separated. */
export function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > maxHostNameLength) return false;
  const labels = host.split('.');
  if (!labels.every((part) => label.test(part))) return false;
  // All-numeric names are addresses: only the dotted quad is, the rest (`127.1`) are not written here.
  return !labels.every((part) => /^\d+$/.test(part)) || ipv4.test(host);
}

export function isIpv4(host: string): boolean {
  return ipv4.test(host);
}

/** An IPv6 literal (without brackets), in its canonical form, or null. */
export function canonicalIpv6(host: string): string | null {
  if (!host.includes(':') || !/^[0-9a-f:.]+$/i.test(host)) return null;
  try {
    const parsed = new URL(`http://[${host}]/`).hostname;
    return parsed.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * A host a run asked for (a CONNECT authority, an absolute URL's host): a name, an IPv4 or an IPv6
 * address, nothing else. The proxy refuses anything else outright: no resolver would find it, and
 * it is text the agent chose.
 */
export function isRequestHost(host: string): boolean {
  return isHostName(host) || canonicalIpv6(host) !== null;
}

/** Lower case, brackets and a trailing dot removed: how hosts are compared. */
export function normalizeHost(host: string): string {
  let normalized = host.trim().toLowerCase();
  if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
  if (normalized.endsWith('.')) normalized = normalized.slice(0, -1);
  return normalized;
}

/** The ASCII (punycode) form of a Unicode name, as a resolver and the proxy see it; null when it is no name. */
function asciiName(host: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(host)) return host;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

/** Parses one entry as an operator wrote it; `text` is how it reads back (`registry.npmjs.org`, `[::1]:8080`). */
export function parseAllowedHost(input: string): AllowedHostParse {
  const text = input.trim();
  if (text.length === 0) return { ok: false, problem: 'Enter a host, such as registry.npmjs.org.' };
  if (text.length > maxEntryLength) return { ok: false, problem: 'That is longer than any host name can be.' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return { ok: false, problem: 'Write the host alone, without http:// or https://, e.g. registry.npmjs.org.' };
  }
  if (/\s/.test(text)) return { ok: false, problem: 'A host has no spaces.' };
  if (text.includes('@')) return { ok: false, problem: 'A host has no user name or password in it.' };
  if (/[/?#]/.test(text)) return { ok: false, problem: 'Write the host alone, without a path, e.g. github.com, not github.com/org.' };

  let hostPart = text;
  let port = defaultAllowedPort;
  let bracketed = false;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return { ok: false, problem: 'An IPv6 address goes in brackets: [::1] or [::1]:8080.' };
    hostPart = text.slice(1, close);
    bracketed = true;
    const after = text.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) return { ok: false, problem: 'After an IPv6 address in brackets comes only :port.' };
      const parsedPort = parsePort(after.slice(1));
      if (parsedPort === null) return { ok: false, problem: 'A port is a number from 1 to 65535.' };
      port = parsedPort;
    }
  } else {
    const colons = text.split(':').length - 1;
    if (colons > 1) return { ok: false, problem: 'An IPv6 address goes in brackets: [::1] or [::1]:8080.' };
    if (colons === 1) {
      const at = text.lastIndexOf(':');
      hostPart = text.slice(0, at);
      const parsedPort = parsePort(text.slice(at + 1));
      if (parsedPort === null) return { ok: false, problem: 'A port is a number from 1 to 65535.' };
      port = parsedPort;
    }
  }

  if (bracketed) {
    const ipv6 = canonicalIpv6(hostPart);
    if (!ipv6) return { ok: false, problem: `${hostPart} is not an IPv6 address.` };
    return accepted(ipv6, port);
  }

  let host = hostPart.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '*' || host === '') {
    return { ok: false, problem: 'A bare * would allow every host. Choose the Open network instead, or name the hosts.' };
  }
  const wildcard = host.startsWith('*.');
  const name = asciiName(wildcard ? host.slice(2) : host);
  if (name === null || name.includes('*')) {
    return { ok: false, problem: wildcard ? 'Only a leading *. is allowed, as in *.example.com.' : `${hostPart} is not a host name.` };
  }
  if (!isHostName(name)) return { ok: false, problem: `${hostPart} is not a host name: use letters, digits, hyphens and dots.` };
  if (wildcard) {
    if (isIpv4(name)) return { ok: false, problem: 'A * stands for names, not addresses: list the address itself.' };
    if (name.split('.').length < 2) return { ok: false, problem: `*.${name} would allow a whole top-level domain. Name a domain under it, e.g. *.example.com.` };
    return accepted(`*.${name}`, port);
  }
  return accepted(name, port);
}

function accepted(host: string, port: number): AllowedHostParse {
  const entry = { host, port };
  return { ok: true, entry, text: formatAllowedHost(entry) };
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** An entry as it reads: the host alone for HTTPS (443), else host:port; IPv6 in brackets. */
export function formatAllowedHost(entry: AllowedHost): string {
  const host = entry.host.includes(':') ? `[${entry.host}]` : entry.host;
  return entry.port === defaultAllowedPort ? host : `${host}:${entry.port}`;
}

/** Whether an entry lets a run reach `host:port` (the host already normalised). */
export function allowedHostMatches(entry: AllowedHost, host: string, port: number): boolean {
  if (entry.port !== port) return false;
  const wanted = normalizeHost(host);
  if (entry.host.startsWith('*.')) return wanted.endsWith(entry.host.slice(1)) && wanted.length > entry.host.length - 1;
  return entry.host === wanted;
}

/**
 * Cleans a list (each entry parsed, duplicates dropped, in the order written). Entries that do not
 * parse are left out: the contract refuses them before this is reached.
 */
export function canonicalAllowedHosts(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const entry of entries) {
    const parsed = parseAllowedHost(entry);
    if (parsed.ok) seen.add(parsed.text);
  }
  return [...seen];
}

/** The longest host the console shows or records as the agent wrote it. */
export const maxShownHostLength = 255;

/**
 * A host a run asked for, as the console may show and record it. The agent wrote it, so it is
 * hostile text: anything but the characters of a host name, an address or a port (a terminal
 * escape, a bidirectional override, an invisible character) is written as a visible `\u{…}` escape,
 * and it is cut to a length a page can hold. Shown twice, it reads the same.
 */
export function displayHost(raw: string): string {
  // The escape's own characters (and the cut's ellipsis) pass as they are, so a host shown once
  // shows the same when it is shown again (what the proxy recorded is read back through this).
  const escaped = [...raw]
    .map((char) => (/^[A-Za-z0-9.\-_:[\]*\\{}…]$/.test(char) ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`))
    .join('');
  return escaped.length > maxShownHostLength ? `${escaped.slice(0, maxShownHostLength - 1)}…` : escaped;
}

export interface AllowedHostPreset {
  id: string;
  label: string;
  hosts: readonly string[];
}

/** Ready sets of hosts an operator can tick: what a project's usual tools reach over HTTPS. */
export const allowedHostPresets: readonly AllowedHostPreset[] = [
  { id: 'npm', label: 'npm registry', hosts: ['registry.npmjs.org'] },
  { id: 'pypi', label: 'PyPI', hosts: ['pypi.org', 'files.pythonhosted.org'] },
  { id: 'crates', label: 'crates.io', hosts: ['crates.io', 'static.crates.io', 'index.crates.io'] },
  { id: 'go', label: 'Go module proxy', hosts: ['proxy.golang.org', 'sum.golang.org'] },
  { id: 'github', label: 'GitHub over HTTPS', hosts: ['github.com', 'codeload.github.com', 'objects.githubusercontent.com'] },
  { id: 'gitlab', label: 'GitLab over HTTPS', hosts: ['gitlab.com'] },
];
