import type { HostReport } from '../../../shared/hosts';
import type { ToolResult } from '../../sandbox/tool-sandbox';
import { remoteCommand } from '../remote-script';
import { runSsh, type SshSettings } from '../ssh-command';
import { sshFailure } from '../ssh-failure';

/**
 * One tested host as a run uses it: the system ssh with the console's options, the host key checked
 * strictly against the operator's known_hosts files and the console's own (host-service.ts builds
 * it), and what Test host last found there. Every command a run sends is a fixed list of words the
 * console chose (paths it made, ids, numbers), single-quoted for the remote shell; anything a run or
 * an operator wrote (argv, prompt, environment) travels on stdin, never on the command line.
 */
export interface HostConnection {
  hostId: string;
  /** The name ssh is given. */
  name: string;
  settings: SshSettings;
  /** ssh's options, before `--` and the name. */
  options: string[];
  report: HostReport;
}

/** What runs ask of the hosts (host-service.ts): how a run reaches its host. */
export interface RunHosts {
  connection(hostId: string): Promise<HostConnection>;
}

/** ssh's whole argv for one command on the host. */
export function sshArgv(connection: HostConnection, words: string[]): string[] {
  return [...connection.options, '--', connection.name, remoteCommand(words)];
}

export interface HostCommand {
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** Runs one command on the host, bounded in time and output; a failing ssh (exit 255) becomes its `ssh_failed` reason. */
export async function runOnHost(connection: HostConnection, words: string[], command: HostCommand): Promise<ToolResult> {
  const result = await runSsh(connection.settings, { args: sshArgv(connection, words), timeoutMs: command.timeoutMs, maxOutputBytes: command.maxOutputBytes, ...(command.stdin ? { stdin: command.stdin } : {}) });
  if (result.timedOut || result.exitCode === 255) throw sshFailure(connection.name, result, { during: 'connect', timeoutMs: command.timeoutMs });
  return result;
}
