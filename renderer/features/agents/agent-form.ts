import { channels, type ChannelInput } from '../../../shared/contract';
import { homeModes, type Agent, type CatalogProvider, type Environment } from '../../../shared/entities';

/** What the agent form holds, as typed: numbers and argument lists stay text until submitted. */
export interface AgentFormValues {
  name: string;
  providerId: string;
  model: string;
  profileId: string;
  capacity: string;
  environmentId: string;
  homeMode: Agent['homeMode'];
  executablePath: string;
  /** One argument per line (command provider only). */
  commandArgs: string;
}

export type AgentFormField = keyof AgentFormValues;
export type AgentFormProblems = Partial<Record<AgentFormField, string>>;

/** The placeholders the command provider substitutes in its arguments, for the form's hint. */
export const commandPlaceholders = ['{prompt}', '{cwd}', '{model}'] as const;

/** Sent as the model of a provider whose catalog lists none (any command) when the field is left blank. */
export const unnamedModel = 'default';

/**
 * The command provider has no executable of its own: the agent names the program to run and its
 * arguments. Every other provider is a known CLI found on PATH unless the agent says where it is.
 */
export function isCommandProvider(provider: Pick<CatalogProvider, 'id' | 'executable'> | undefined): boolean {
  return provider !== undefined && (provider.id === 'command' || provider.executable === null);
}

/** One argument per line; surrounding spaces and blank lines are dropped (a trailing newline is common). */
export function parseArgumentLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

export function argumentLines(args: readonly string[] | null): string {
  return args ? args.join('\n') : '';
}

export function homeModeOptionLabel(mode: Agent['homeMode']): string {
  return mode === 'isolated' ? 'Isolated' : 'Preconfigured (your own login)';
}

export const homeModeOptions = homeModes.map((mode) => ({ value: mode, label: homeModeOptionLabel(mode) }));

/** A new agent: the first provider, its first model and profile, a local environment, your own login. */
export function defaultAgentForm(providers: readonly CatalogProvider[], environments: readonly Environment[]): AgentFormValues {
  const provider = providers[0];
  const environment = environments.find((candidate) => !candidate.requiresConnection) ?? environments[0];
  return {
    name: '',
    providerId: provider?.id ?? '',
    model: provider?.models[0]?.id ?? '',
    profileId: provider?.profiles[0]?.id ?? '',
    capacity: '1',
    environmentId: environment?.id ?? '',
    homeMode: environment?.requiresConnection ? 'isolated' : 'preconfigured',
    executablePath: '',
    commandArgs: '',
  };
}

export function agentFormFromAgent(agent: Agent): AgentFormValues {
  return {
    name: agent.name,
    providerId: agent.providerId,
    model: agent.model,
    profileId: agent.profileId,
    capacity: String(agent.capacity),
    environmentId: agent.environmentId,
    homeMode: agent.homeMode,
    executablePath: agent.executablePath ?? '',
    commandArgs: argumentLines(agent.commandArgs),
  };
}

/** Switching provider: its models and profiles replace the old ones (an old model id means nothing there). */
export function withProvider(values: AgentFormValues, provider: CatalogProvider | undefined): AgentFormValues {
  if (!provider) return values;
  const keepsModel = provider.models.length === 0 ? false : provider.models.some((model) => model.id === values.model);
  const keepsProfile = provider.profiles.some((profile) => profile.id === values.profileId);
  return {
    ...values,
    providerId: provider.id,
    model: keepsModel ? values.model : (provider.models[0]?.id ?? ''),
    profileId: keepsProfile ? values.profileId : (provider.profiles[0]?.id ?? ''),
    commandArgs: isCommandProvider(provider) ? values.commandArgs : '',
  };
}

function parseCapacity(text: string): number {
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

export function createAgentInput(values: AgentFormValues, provider: CatalogProvider | undefined): ChannelInput<'createAgent'> {
  const command = isCommandProvider(provider);
  const executablePath = values.executablePath.trim();
  const input: ChannelInput<'createAgent'> = {
    name: values.name.trim(),
    providerId: values.providerId,
    model: values.model.trim() || (provider && provider.models.length === 0 ? unnamedModel : ''),
    profileId: values.profileId,
    capacity: parseCapacity(values.capacity),
    homeMode: values.homeMode,
    executablePath: executablePath || null,
  };
  if (values.environmentId) input.environmentId = values.environmentId;
  if (command) {
    const args = parseArgumentLines(values.commandArgs);
    input.commandArgs = args.length > 0 ? args : null;
  }
  return input;
}

/** Only what changed is sent. */
export function updateAgentInput(
  agent: Agent,
  values: AgentFormValues,
  provider: CatalogProvider | undefined,
): ChannelInput<'updateAgent'> {
  const next = createAgentInput(values, provider);
  const input: ChannelInput<'updateAgent'> = { agentId: agent.id };
  if (next.name !== agent.name) input.name = next.name;
  if (next.providerId !== agent.providerId) input.providerId = next.providerId;
  if (next.model !== agent.model) input.model = next.model;
  if (next.profileId !== agent.profileId) input.profileId = next.profileId;
  if (next.capacity !== agent.capacity) input.capacity = next.capacity;
  if (next.homeMode !== agent.homeMode) input.homeMode = next.homeMode;
  if (next.environmentId !== undefined && next.environmentId !== agent.environmentId) input.environmentId = next.environmentId;
  if (next.executablePath !== agent.executablePath) input.executablePath = next.executablePath ?? null;
  const args = next.commandArgs ?? null;
  if (argumentLines(args) !== argumentLines(agent.commandArgs) || (args === null) !== (agent.commandArgs === null)) {
    input.commandArgs = args;
  }
  return input;
}

const fieldMessages: Partial<Record<AgentFormField, string>> = {
  name: 'Give the agent a name.',
  model: 'Name a model: pick a suggestion, or type the id your provider or gateway uses.',
  profileId: 'Choose a launch profile.',
  providerId: 'Choose a provider.',
  capacity: 'Runs at once is a whole number from 1 to 32.',
  executablePath: 'Give the full path of the program.',
  commandArgs: 'An argument is at most 10,000 characters, and there are at most 200.',
};

/**
 * Checks the form with the contract's own schema. Whether a command agent needs a program of its own
 * depends on its profile (a shell profile brings /bin/sh), which only the core knows: it says so.
 */
export function agentFormProblems(values: AgentFormValues, provider: CatalogProvider | undefined): AgentFormProblems {
  const problems: AgentFormProblems = {};
  const parsed = channels.createAgent.input.safeParse(createAgentInput(values, provider));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      const message = typeof field === 'string' ? fieldMessages[field as AgentFormField] : undefined;
      if (message) problems[field as AgentFormField] ??= message;
    }
  }
  return problems;
}
