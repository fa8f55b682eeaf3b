import { allowedHostMatches, normalizeHost, parseAllowedHost, type AllowedHost } from '../../shared/allowed-hosts';

/**
 * The egress proxy's allow-list (egress-proxy.ts): `host:port` pairs, a leading `*.` allowing every
 * subdomain, compared after normalising the host. The rules for an entry are shared/allowed-hosts.ts,
 * the same the operator's form and the contract check.
 */

export { normalizeHost };

/** A host name or IP address; `*.example.com` allows every subdomain of example.com. */
export type EgressEndpoint = AllowedHost;

/** The endpoint of a provider API or AI-connection base URL, e.g. `https://api.openai.com/v1`. */
export function endpointFromUrl(url: string): EgressEndpoint {
  const parsed = new URL(url);
  const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
  const port = parsed.port ? Number(parsed.port) : defaultPorts[parsed.protocol];
  if (port === undefined) throw new Error(`${url} is not an http(s) URL.`);
  return { host: normalizeHost(parsed.hostname), port };
}

/** An environment's allowed-host entries (`registry.npmjs.org`, `127.0.0.1:4873`) as endpoints; unparsable ones are skipped. */
export function endpointsFromAllowedHosts(entries: readonly string[]): EgressEndpoint[] {
  return entries.flatMap((entry) => {
    const parsed = parseAllowedHost(entry);
    return parsed.ok ? [parsed.entry] : [];
  });
}

export function isEgressAllowed(allow: EgressEndpoint[], host: string, port: number): boolean {
  return allow.some((entry) => allowedHostMatches({ host: normalizeHost(entry.host), port: entry.port }, host, port));
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1']);

/** Ports below this need a capability the sandbox does not have (`ip_unprivileged_port_start`). */
const firstUnprivilegedPort = 1024;

/**
 * Allowed endpoints on the host's loopback: the relay forwards these ports inside the sandbox. One
 * listener per port (an operator may list `localhost:4873` and `127.0.0.1:4873`), and only ports the
 * relay may listen on: a privileged one stays reachable through the proxy, as every other host is.
 */
export function loopbackForwards(allow: EgressEndpoint[]): EgressEndpoint[] {
  const ports = new Set<number>();
  return allow.filter((entry) => {
    if (!loopbackHosts.has(normalizeHost(entry.host)) || entry.port < firstUnprivilegedPort || ports.has(entry.port)) return false;
    ports.add(entry.port);
    return true;
  });
}
