import path from 'node:path';
import type { ConsoleVariable } from '../../shared/entities';
import { deliveredVariableNames, providerHomeVariableNames } from '../providers/definitions';
import { egressProxyEnvironment, electronRelayEnvironment } from './egress-relay';

/**
 * The environment a confined run starts with. It is built up from nothing: a short allow-list of the
 * operator's variables that programs need to behave (PATH, locale, terminal, user name), then the
 * confinement's own variables. The operator's whole environment is never passed on: it holds API
 * keys, tokens and agent sockets that an unattended agent must not see.
 */

/** Operator variables a run may inherit, by exact name. `LC_*` is matched by prefix. */
export const operatorVariableAllowList = ['PATH', 'LANG', 'TERM', 'COLORTERM', 'USER', 'LOGNAME', 'SHELL', 'TZ'] as const;

export interface EnvironmentVariable {
  name: string;
  value: string;
}

/**
 * The task root's folders a confined process is pointed at (task-root/task-root-layout.ts's TaskRoot
 * has them all; the sandbox sits below the task root in the folder order, so it names only these).
 */
export interface ConfinedFolders {
  root: string;
  view: string;
  tmp: string;
  cache: string;
  home: string;
}

export const taskRootVariable = 'OPERATOR_CONSOLE_TASK_ROOT';

// Substrings that mark a name as a credential. Matching is deliberately broad (a false positive
// costs the operator one renamed variable; a false negative leaks a key to an unattended agent).
const credentialNameParts = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'AUTH', 'CREDENTIAL'];
// Names that contain a credential word but are plainly not secrets, and that agents need to commit.
const notCredentials = new Set(['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE']);

export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  if (notCredentials.has(upper)) return false;
  return credentialNameParts.some((part) => upper.includes(part));
}

/** Never passed, whoever asks: it lets a process sign as the operator with their SSH keys. */
const forbiddenNames = new Set(['SSH_AUTH_SOCK']);

export type WithheldReason = 'credential' | 'reserved' | 'ssh-agent';

export interface WithheldVariable {
  name: string;
  source: 'operator' | 'profile' | 'layers' | 'extra' | 'delivered';
  reason: WithheldReason;
}

/**
 * The variables confinement depends on, for a task root: the run's home, temporary folder, working
 * folder and task root. They are applied last, so nothing can point a run back at the operator's
 * real home or temporary folder.
 */
export function confinementVariables(taskRoot: Pick<ConfinedFolders, 'root' | 'view' | 'tmp' | 'home'>): Record<string, string> {
  return {
    HOME: taskRoot.home,
    TMPDIR: taskRoot.tmp,
    TMP: taskRoot.tmp,
    TEMP: taskRoot.tmp,
    PWD: taskRoot.view,
    [taskRootVariable]: taskRoot.root,
  };
}

/**
 * Every variable the console sets for a run itself, with what it is, which no variable layer
 * (project, agent, task) may set. Derived from where each is set, never listed by hand: the
 * confinement's own (from `confinementVariables`), every CLI's home variable, the egress proxy's,
 * the relay's, everything a managed AI connection's delivery can set, and the ssh-agent socket.
 */
export function consoleSetVariables(): ConsoleVariable[] {
  const found = new Map<string, string>();
  const add = (names: Iterable<string>, setBy: string) => {
    for (const name of names) if (!found.has(name)) found.set(name, setBy);
  };
  // Each confinement variable says what it is by the words it is given for a value.
  const described = confinementVariables({ root: 'task root', view: 'working folder (its view)', tmp: 'temporary folder', home: 'home folder' });
  for (const [name, what] of Object.entries(described)) add([name], `the run’s ${what}`);
  add(providerHomeVariableNames(), 'the CLI’s home folder in the run’s cache');
  add(Object.keys(egressProxyEnvironment(1)), 'the run’s egress proxy');
  add(Object.keys(electronRelayEnvironment), 'the run’s egress relay');
  add(deliveredVariableNames(), 'an AI connection’s delivery');
  add(forbiddenNames, 'nobody: it would let the run sign as you with your SSH keys');
  return [...found].map(([name, setBy]) => ({ name, setBy }));
}

export interface ConfinedEnvironmentInput {
  operatorEnv: Record<string, string | undefined>;
  taskRoot: Pick<ConfinedFolders, 'root' | 'view' | 'tmp' | 'cache' | 'home'>;
  /** From `prepareProviderHome`; must point inside the task's cache. Every CLI's home variable is reserved. */
  providerHomeVar?: EnvironmentVariable | null;
  /** The launch profile's own entries. */
  profileEnv: Record<string, string>;
  /**
   * The operator's variable layers, merged (project < agent < task; runs/run-variables.ts): the
   * operator's deliberate choice, so a credential-like name passes, but never a variable the console
   * sets itself (consoleSetVariables). Secret values among them are redacted by the caller.
   */
  layerVariables?: Record<string, string>;
  /**
   * Secrets the console delivers for this run (a managed AI connection's key). The only way a
   * credential-like name reaches a run; the caller redacts these values from the run's output.
   */
  deliveredSecrets?: Record<string, string>;
  /** Console-owned variables, e.g. the egress proxy's HTTPS_PROXY/HTTP_PROXY/NO_PROXY. */
  extra?: Record<string, string>;
}

export interface ConfinedEnvironment {
  env: Record<string, string>;
  /** Names that were asked for but not passed, so the run detail can say why a variable is missing. */
  withheld: WithheldVariable[];
}

export function buildConfinedEnvironment(input: ConfinedEnvironmentInput): ConfinedEnvironment {
  const { taskRoot } = input;
  if (input.providerHomeVar && !isInside(input.providerHomeVar.value, taskRoot.cache)) {
    throw new Error(`${input.providerHomeVar.name} must point inside the task's cache (${taskRoot.cache}).`);
  }

  // Applied last so nothing (profile, layers, extra, delivered) can point a run back at the
  // operator's real home or temporary folder.
  const confinement = confinementVariables(taskRoot);
  if (input.providerHomeVar) confinement[input.providerHomeVar.name] = input.providerHomeVar.value;
  const reserved = new Set([...Object.keys(confinement), ...providerHomeVariableNames()]);
  const consoleSet = input.layerVariables ? new Set(consoleSetVariables().map((variable) => variable.name)) : null;

  const env: Record<string, string> = {};
  const withheld: WithheldVariable[] = [];

  for (const [name, value] of Object.entries(input.operatorEnv)) {
    if (value === undefined || !isAllowListed(name)) continue;
    if (forbiddenNames.has(name)) continue;
    if (looksLikeCredential(name)) {
      withheld.push({ name, source: 'operator', reason: 'credential' });
      continue;
    }
    env[name] = value;
  }

  const layer = (entries: Record<string, string> | undefined, source: WithheldVariable['source']) => {
    for (const [name, value] of Object.entries(entries ?? {})) {
      if (forbiddenNames.has(name)) withheld.push({ name, source, reason: 'ssh-agent' });
      else if (reserved.has(name) || (source === 'layers' && consoleSet?.has(name))) withheld.push({ name, source, reason: 'reserved' });
      else if (source !== 'delivered' && source !== 'layers' && looksLikeCredential(name)) withheld.push({ name, source, reason: 'credential' });
      else env[name] = value;
    }
  };
  layer(input.profileEnv, 'profile');
  layer(input.layerVariables, 'layers');
  layer(input.extra, 'extra');
  layer(input.deliveredSecrets, 'delivered');

  Object.assign(env, confinement);
  // CLIs draw plain text without these; every console terminal is a capable xterm.js.
  env.TERM ??= 'xterm-256color';
  env.COLORTERM ??= 'truecolor';
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { env, withheld };
}

function isAllowListed(name: string): boolean {
  return (operatorVariableAllowList as readonly string[]).includes(name) || name.startsWith('LC_');
}

function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
