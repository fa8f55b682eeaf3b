import { allowedHostPresets, canonicalAllowedHosts, maxAllowedHosts, parseAllowedHost } from '../../../shared/allowed-hosts';
import type { ChannelInput } from '../../../shared/contract';
import type { Environment } from '../../../shared/entities';

/**
 * The New environment / Edit form as plain values, so what it accepts and sends is tested without a
 * DOM. Allowed hosts are edited as ticked presets plus the other hosts, one per line; what is saved
 * is their union in canonical form (shared/allowed-hosts.ts), which is also what the core checks.
 */

export interface EnvironmentFormValues {
  name: string;
  kind: Environment['kind'];
  networkMode: Environment['networkMode'];
  /** Ids of the ticked presets (allowedHostPresets). */
  presets: string[];
  /** The other allowed hosts, one per line, as typed. */
  otherHosts: string;
  requiresConnection: boolean;
  /** The SSH host its runs are meant for (Settings → Hosts), or null: this machine. */
  hostId: string | null;
}

export type EnvironmentFormField = 'name' | 'otherHosts';
export type EnvironmentFormProblems = Partial<Record<EnvironmentFormField, string>>;

export function emptyEnvironmentForm(): EnvironmentFormValues {
  return { name: '', kind: 'sandboxed', networkMode: 'provider-only', presets: [], otherHosts: '', requiresConnection: true, hostId: null };
}

/**
 * An environment as the form shows it: a preset is ticked when every host of it is allowed, and the
 * rest are the other hosts. `allowHost` (from a "Network request blocked" notice's link) is added at
 * the end of the other hosts, unless the environment already allows it.
 */
export function environmentFormFromEnvironment(environment: Environment, allowHost?: string): EnvironmentFormValues {
  const allowed = new Set(environment.allowedHosts);
  const presets = allowedHostPresets.filter((preset) => preset.hosts.every((host) => allowed.has(host)));
  const inPresets = new Set(presets.flatMap((preset) => preset.hosts));
  const others = environment.allowedHosts.filter((host) => !inPresets.has(host));
  const wanted = allowHost ? parseAllowedHost(allowHost) : null;
  if (wanted?.ok && !allowed.has(wanted.text)) others.push(wanted.text);
  return {
    name: environment.name,
    kind: environment.kind,
    networkMode: environment.networkMode,
    presets: presets.map((preset) => preset.id),
    otherHosts: others.length > 0 ? `${others.join('\n')}\n` : '',
    requiresConnection: environment.requiresConnection,
    hostId: environment.hostId,
  };
}

function otherHostLines(values: Pick<EnvironmentFormValues, 'otherHosts'>): string[] {
  return values.otherHosts
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** What is wrong with the fields, named where it is (the line of the host that is not one). */
export function environmentFormProblems(values: EnvironmentFormValues): EnvironmentFormProblems {
  const problems: EnvironmentFormProblems = {};
  if (values.name.trim().length === 0) problems.name = 'Give the environment a name.';
  if (values.kind === 'sandboxed' && values.networkMode === 'provider-only') {
    const lines = otherHostLines(values);
    for (const [index, line] of lines.entries()) {
      const parsed = parseAllowedHost(line);
      if (!parsed.ok) {
        problems.otherHosts = `${lines.length > 1 ? `Line ${index + 1}, ` : ''}“${line.length > 60 ? `${line.slice(0, 59)}…` : line}”: ${parsed.problem}`;
        break;
      }
    }
    if (!problems.otherHosts && allowedHosts(values).length > maxAllowedHosts) {
      problems.otherHosts = `That is more than ${maxAllowedHosts} hosts. Use a *.example.com entry for many names under one domain.`;
    }
  }
  return problems;
}

export function firstEnvironmentProblem(problems: EnvironmentFormProblems): EnvironmentFormField | undefined {
  return (['name', 'otherHosts'] as const).find((field) => problems[field]);
}

/** The allowed hosts the form stands for: the ticked presets' and the other lines', canonical, each once. */
export function allowedHosts(values: Pick<EnvironmentFormValues, 'presets' | 'otherHosts'>): string[] {
  const presetHosts = allowedHostPresets.filter((preset) => values.presets.includes(preset.id)).flatMap((preset) => preset.hosts);
  return canonicalAllowedHosts([...presetHosts, ...otherHostLines(values)]);
}

/**
 * What is sent. A local environment has no network rule the console could enforce: it goes as open,
 * with no hosts. Allowed hosts are kept while the network is None or Open (they apply again when it
 * is Provider only), so switching back and forth loses nothing.
 */
export function environmentInput(values: EnvironmentFormValues): Omit<ChannelInput<'createEnvironment'>, 'name'> & { name: string } {
  const local = values.kind === 'local';
  return {
    name: values.name.trim(),
    kind: values.kind,
    networkMode: local ? 'open' : values.networkMode,
    allowedHosts: local ? [] : allowedHosts(values),
    requiresConnection: local ? values.requiresConnection : true,
    hostId: values.hostId,
  };
}

/** The change an edit sends: only what differs from the environment (null when nothing does). */
export function environmentUpdate(environment: Environment, values: EnvironmentFormValues): ChannelInput<'updateEnvironment'> | null {
  const next = environmentInput(values);
  const update: ChannelInput<'updateEnvironment'> = { environmentId: environment.id };
  if (next.name !== environment.name) update.name = next.name;
  if (next.kind !== environment.kind) update.kind = next.kind;
  if (next.networkMode !== environment.networkMode) update.networkMode = next.networkMode;
  if (next.requiresConnection !== environment.requiresConnection) update.requiresConnection = next.requiresConnection;
  if (next.hostId !== environment.hostId) update.hostId = next.hostId;
  // The order a list is shown in is not a change.
  const hosts = next.allowedHosts ?? [];
  const saved = new Set(environment.allowedHosts);
  if (hosts.length !== saved.size || hosts.some((host) => !saved.has(host))) update.allowedHosts = hosts;
  return Object.keys(update).length === 1 ? null : update;
}
