import type { ToolResult } from '../sandbox/tool-sandbox';
import { knownHostsFilesOption, runSsh, sshBaseArgs, type SshSettings } from './ssh-command';
import { resolveDestination } from './ssh-destination';

/**
 * How the console runs its own work on a host (issue 28): one fixed script of the console's, never a
 * command line built from what the operator or an agent typed. The remote login shell parses only
 *
 *     sh -c '<decoder>' operator-console '<base64 of the script>' '<arg>' ...
 *
 * that is, plain words, each single-quoted: every login shell an account may have (sh, bash, zsh,
 * tcsh, fish) reads that line the same way, where `$(…)` or double quotes would already differ (csh
 * has no `$(…)`; fish reads backslashes inside single quotes). The decoder, which only sh reads,
 * decodes the script and runs it with the arguments as "$1", "$2": an argument is never parsed again.
 * The script travels base64-encoded (letters and digits, whatever shell it is); an input is either one
 * single-quoted word (remoteShellWord) or bytes on ssh's standard input. The host key is checked as
 * Test host checks it: the operator's known_hosts files and the console's, StrictHostKeyChecking=yes.
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

/**
 * One word as every login shell reads it: single-quoted, a single quote in it closed, escaped and
 * reopened (`'\''`, read alike by sh, bash, zsh, tcsh and fish). A backslash (fish reads `\\` inside
 * single quotes as one), an exclamation mark (tcsh expands history even there, even under -c), a line
 * break (csh refuses one inside quotes) or a NUL could be read otherwise, so a word holding one is
 * refused: the console's words are paths it made, ids and numbers.
 */
export function remoteShellWord(word: string): string {
  if (/[\\!\n\r\0]/.test(word)) throw new Error(`a word the console will not send to a host's shell: ${JSON.stringify(word)}`);
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Words a remote login shell reads as they are (remoteShellWord each). */
export function remoteCommand(words: string[]): string {
  return words.map(remoteShellWord).join(' ');
}

/** Decodes the script in "$1" and runs it with the rest as its "$1"...; only sh reads this. */
const decoder = 's=$(printf %s "$1" | base64 -d) || exit 125; shift; exec sh -c "$s" operator-console "$@"';

/** The remote command that runs `script` with `args` as "$1"...: the only thing the remote shell parses. */
export function fixedScriptCommand(script: string, args: string[]): string {
  const encoded = Buffer.from(script, 'utf8').toString('base64');
  return remoteCommand(['sh', '-c', decoder, 'operator-console', encoded, ...args]);
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
