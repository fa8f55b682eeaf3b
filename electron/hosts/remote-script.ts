import type { ToolResult } from '../sandbox/tool-sandbox';
import { knownHostsFilesOption, runSsh, sshBaseArgs, type SshSettings } from './ssh-command';
import { resolveDestination } from './ssh-destination';

/**
 * How the console runs its own work on a host (issue 28): one fixed script of the console's, never a
 * command line built from what the operator or an agent typed. The remote login shell parses only
 *
 *     sh -c "$(printf %s <base64 of the script> | base64 -d)" operator-console '<arg>' ...
 *
 * The script travels base64-encoded (so the login shell sees letters and digits, whatever shell it
 * is), and every input is either one single-quoted argument, refused when it holds a quote, a line
 * break or a NUL, or bytes on ssh's standard input. The script reads its arguments as "$1", "$2":
 * an argument is never parsed again. The host key is checked as Test host checks it: the operator's
 * known_hosts files and the console's, StrictHostKeyChecking=yes.
 */

/**
 * How the console reaches one host: its ssh settings, and the options every ssh to the host gets, the
 * host key check included (host-service.ts makes them for a run, with hostKeyCheckedArgs).
 */
export interface SshConnection {
  settings: SshSettings;
  options: string[];
}

export interface SshHost {
  ssh: SshConnection;
  /** The host's name as ssh knows it (Settings → Hosts). */
  host: string;
}

/** The options that make ssh check `name`'s key against the operator's known_hosts files and the console's own. */
export async function hostKeyCheckedArgs(settings: SshSettings, name: string): Promise<string[]> {
  const { userKnownHostsFiles } = await resolveDestination(settings, name);
  return [...sshBaseArgs(settings), '-o', 'StrictHostKeyChecking=yes', '-o', knownHostsFilesOption([...userKnownHostsFiles, settings.consoleKnownHosts])];
}

/** How the console reaches `name`, as ssh resolves it now. */
export async function sshConnectionTo(settings: SshSettings, name: string): Promise<SshConnection> {
  return { settings, options: await hostKeyCheckedArgs(settings, name) };
}

/** One argument as the remote shell reads it: single-quoted, and refused when it could be anything else. */
export function quoteRemoteArgument(value: string): string {
  if (/['\n\r\0]/.test(value)) throw new Error(`an argument the console will not send to a host: ${JSON.stringify(value)}`);
  return `'${value}'`;
}

/** The remote command that runs `script` with `args` as "$1"...: the only thing the remote shell parses. */
export function fixedScriptCommand(script: string, args: string[]): string {
  const encoded = Buffer.from(script, 'utf8').toString('base64');
  return [`sh -c "$(printf %s ${encoded} | base64 -d)" operator-console`, ...args.map(quoteRemoteArgument)].join(' ');
}

export interface RemoteScriptRun {
  script: string;
  args: string[];
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** Runs one fixed script on the host over the system ssh, bounded in time and output. */
export function runRemoteScript({ ssh, host }: SshHost, run: RemoteScriptRun): Promise<ToolResult> {
  return runSsh(ssh.settings, {
    args: [...ssh.options, '--', host, fixedScriptCommand(run.script, run.args)],
    timeoutMs: run.timeoutMs,
    maxOutputBytes: run.maxOutputBytes,
    ...(run.stdin ? { stdin: run.stdin } : {}),
  });
}
