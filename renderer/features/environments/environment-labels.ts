import type { Environment } from '../../../shared/entities';

/** Environments in words: the choices of the form and how the list says what each one does. */

export const sandboxChoices: ReadonlyArray<{ kind: Environment['kind']; label: string; hint: string }> = [
  {
    kind: 'sandboxed',
    label: 'OS sandbox',
    hint: 'bubblewrap on Linux, Seatbelt on macOS: a run writes only its own folders, never sees your home or the console’s data, and reaches only what its network allows.',
  },
  {
    kind: 'local',
    label: 'None',
    hint: 'Runs are your own programs, with your rights, your files and your network. Only for agents you would run by hand.',
  },
];

export const networkChoices: ReadonlyArray<{ mode: Environment['networkMode']; label: string; hint: string }> = [
  {
    mode: 'provider-only',
    label: 'Provider only',
    hint: 'The model’s API (the AI connection’s base URL, or the CLI’s own) and the allowed hosts below, through the console’s egress proxy. Everything else is refused, and a refusal raises a notice that offers to allow the host.',
  },
  {
    mode: 'none',
    label: 'None',
    hint: 'No network at all, not even the model’s API: an agent CLI cannot reach its model here, even a local model server. For programs that need no network; an agent that talks to a model needs Provider only.',
  },
  {
    mode: 'open',
    label: 'Open',
    hint: 'Any host, with nothing recorded. The files stay confined.',
  },
];

/** The Open network's warning; on an SSH host the network shared is the host's, not this machine's. */
export function openNetworkWarning(onHost: boolean): string {
  const reach = onHost
    ? 'any host the SSH host can reach: the internet, the host’s local network, and services on the host itself (the sandbox shares the host’s network, not this machine’s)'
    : 'any host: the internet, your local network, and services on this machine (the sandbox shares its network)';
  return `with an open network the agent can reach ${reach}. It can send out whatever it can read, and the console records none of it.`;
}

/**
 * What an SSH host gets of the agent's AI credentials (issue 28; electron/hosts/model-tunnel/): shown
 * under the SSH host setting once the environment names one.
 */
export const remoteCredentialsNote =
  'AI keys stay on this machine: when the agent’s AI connection has a base URL (its own, or OpenRouter’s), the run’s model requests come back through SSH to the console, which adds the key, and the host only ever holds a token that opens that tunnel for that run. A connection without a base URL has its key delivered to the host for the run (in a variable, or the login file its CLI reads, such as Codex’s auth.json) and removed from it when the run ends: give the connection its provider’s base URL to keep the key here. Your own login (a preconfigured home) is never copied to a host.';

/**
 * Where a host run's network traffic leaves from in the provider-only mode (issue 28; the run's egress
 * proxy is the console's, reached through the run's SSH tunnel): shown beside remoteCredentialsNote.
 */
export const remoteNetworkNote =
  'With the network Provider only, a run on the host reaches its model and the allowed hosts from this machine: its connections come back through SSH to the console’s egress proxy, which decides and records each one as for a run here, and the host’s own network is never used. So an allowed host that only the SSH host can reach (a mirror on its local network, a service on its own 127.0.0.1) is not reached, and 127.0.0.1 in the allowed hosts is this machine: make such a host reachable from here, or choose the network Open.';

export function sandboxLabel(kind: Environment['kind']): string {
  return kind === 'sandboxed' ? 'OS sandbox' : 'None (runs as you)';
}

/** The network as the list says it; a local environment's is not the console's to say. */
export function networkSummary(environment: Pick<Environment, 'kind' | 'networkMode'>): string {
  if (environment.kind === 'local') return 'Not limited: without a sandbox, runs have your network';
  switch (environment.networkMode) {
    case 'provider-only':
      return 'Provider only';
    case 'none':
      return 'None: not even the model';
    case 'open':
      return 'Open: any host';
  }
}
