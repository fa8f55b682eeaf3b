import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeHost, type EgressEndpoint } from './egress-allow-list';

/**
 * The sandbox's side of the `provider-only` network mode: `resources/sandbox/egress-relay.mjs`, which
 * bwrap runs first, and the proxy variables the agent gets (egress-proxy.ts tells the whole story).
 */

/** The relay's port on the sandbox's loopback, unless an allowed loopback endpoint needs it. */
export const defaultRelayPort = 3128;

/** A relay port that no forwarded loopback endpoint uses. */
export function chooseRelayPort(forwards: EgressEndpoint[]): number {
  const taken = new Set(forwards.map((entry) => entry.port));
  let port = defaultRelayPort;
  while (taken.has(port)) port += 1;
  return port;
}

/**
 * The proxy variables the agent gets in `provider-only` mode (see the NO_PROXY note in egress-proxy.ts).
 * `privateLoopback: false` is for macOS, where the sandbox shares the host's loopback and may only
 * reach the proxy's port: there every destination, loopback included, goes through the proxy.
 */
export function egressProxyEnvironment(proxyPort: number, options: { privateLoopback?: boolean } = {}): Record<string, string> {
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const noProxy = options.privateLoopback === false ? '' : 'localhost,127.0.0.1,::1';
  return {
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

/** In Electron the relay runs on Electron's own Node, told so by this (see attempt-confinement.ts). */
export const electronRelayEnvironment: Readonly<Record<string, string>> = { ELECTRON_RUN_AS_NODE: '1' };

/** Finds `resources/sandbox/egress-relay.mjs` from the source tree or the built app. */
export function findEgressRelayScript(start: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let folder = start;
  for (;;) {
    const candidate = path.join(folder, 'resources', 'sandbox', 'egress-relay.mjs');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error('resources/sandbox/egress-relay.mjs was not found.');
    folder = parent;
  }
}

export interface EgressRelayCommandInput {
  /** A Node binary visible inside the sandbox (in Electron: process.execPath with ELECTRON_RUN_AS_NODE=1). */
  nodePath: string;
  relayScript: string;
  socketPath: string;
  relayPort: number;
  forwards: EgressEndpoint[];
  command: string[];
}

/** The command bwrap runs in `provider-only` mode: the relay, which then runs the agent. */
export function egressRelayCommand(input: EgressRelayCommandInput): string[] {
  if (input.forwards.some((entry) => entry.port === input.relayPort)) {
    throw new Error(`Relay port ${input.relayPort} is also a forwarded loopback port; use chooseRelayPort.`);
  }
  return [
    input.nodePath,
    input.relayScript,
    input.socketPath,
    String(input.relayPort),
    ...input.forwards.flatMap((entry) => ['--forward', formatAuthority(entry.host, entry.port)]),
    '--',
    ...input.command,
  ];
}

function formatAuthority(host: string, port: number): string {
  const normalized = normalizeHost(host);
  return normalized.includes(':') ? `[${normalized}]:${port}` : `${normalized}:${port}`;
}
