/**
 * The egress proxy's allow-list (egress-proxy.ts): `host:port` pairs, a leading `*.` allowing every
 * subdomain, compared after normalising the host.
 */

export interface EgressEndpoint {
  /** A host name or IP address; `*.example.com` allows every subdomain of example.com. */
  host: string;
  port: number;
}

export function normalizeHost(host: string): string {
  let normalized = host.trim().toLowerCase();
  if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
  if (normalized.endsWith('.')) normalized = normalized.slice(0, -1);
  return normalized;
}

/** The endpoint of a provider API or AI-connection base URL, e.g. `https://api.openai.com/v1`. */
export function endpointFromUrl(url: string): EgressEndpoint {
  const parsed = new URL(url);
  const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
  const port = parsed.port ? Number(parsed.port) : defaultPorts[parsed.protocol];
  if (port === undefined) throw new Error(`${url} is not an http(s) URL.`);
  return { host: normalizeHost(parsed.hostname), port };
}

export function isEgressAllowed(allow: EgressEndpoint[], host: string, port: number): boolean {
  const wanted = normalizeHost(host);
  return allow.some((entry) => {
    if (entry.port !== port) return false;
    const allowedHost = normalizeHost(entry.host);
    if (allowedHost.startsWith('*.')) return wanted.endsWith(allowedHost.slice(1));
    return allowedHost === wanted;
  });
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1']);

/** Allowed endpoints on the host's loopback: the relay forwards these ports inside the sandbox. */
export function loopbackForwards(allow: EgressEndpoint[]): EgressEndpoint[] {
  return allow.filter((entry) => loopbackHosts.has(normalizeHost(entry.host)));
}
