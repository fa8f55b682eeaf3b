import os from 'node:os';
import { runTool, type ToolResult } from '../sandbox/tool-sandbox';
import { sshNotInstalled } from './ssh-failure';

/**
 * How the console runs the system `ssh` (issue 28). It is the operator's own ssh, with their config
 * (aliases, ProxyJump, User, IdentityFile), their agent and their keys: no transport of the console's
 * own. What the console adds on the command line (where the first value given wins over any config):
 *
 * - `BatchMode=yes`: ssh never prompts (no password, no passphrase, no "are you sure"), so a host that
 *   wants one fails at once instead of waiting for a terminal nobody watches;
 * - a connect timeout, and a time limit on the whole command after which its process group is killed;
 * - `StrictHostKeyChecking=yes` against the operator's known_hosts files and the console's own: an
 *   unknown or changed host key is refused by ssh itself, and the operator decides (host-key-check.ts);
 * - `UpdateHostKeys=no`: ssh never rewrites the operator's known_hosts behind their back;
 * - no connection sharing (`ControlMaster=no`, `ControlPath=none`): every check does its own key
 *   exchange, and no master the console started outlives its command;
 * - no forwarding of the agent, X11 or ports from the config, and no LocalCommand;
 * - the destination after `--`, so no name is ever read as an option.
 *
 * One deliberate exception to "no forwarding": a remote run's tunnel (model-tunnel/model-tunnel.ts)
 * asks for `-R <socket in the run's remote task root>:<the console's model proxy socket>`, so the run's
 * model traffic comes back to the console, which adds the AI key (the key never leaves the operator's
 * machine), and in the provider-only network mode the same for the run's egress proxy socket, so its
 * other connections leave from the operator's machine, decided there; nothing else. ClearAllForwardings would clear that forwarding too, so the tunnel goes without it
 * (`withForwarding`); agent and X11 forwarding stay off there as everywhere.
 */

export interface SshSettings {
  /** The ssh program: `ssh` found on the PATH below. */
  program: string;
  /** `-F`: another config file than ~/.ssh/config (OPERATOR_CONSOLE_SSH_CONFIG; tests). */
  configFile: string | null;
  /** The whole environment ssh gets (sshEnvironment). */
  env: Record<string, string>;
  /** The console's own known_hosts file (in the data directory), where Trust writes. */
  consoleKnownHosts: string;
  connectTimeoutSeconds: number;
}

/** What ssh needs from the operator's environment to find its config, agent and Kerberos tickets; nothing else. */
const passedVariables = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SSH_AUTH_SOCK', 'KRB5CCNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR'];

export function sshEnvironment(operatorEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of passedVariables) {
    const value = operatorEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.HOME ??= os.homedir();
  // No DISPLAY is passed, and this says it once more: ssh never asks anything through a helper program.
  env.SSH_ASKPASS_REQUIRE = 'never';
  return env;
}

/** The options every ssh the console runs gets, before the mode's own (host key checking, known_hosts). */
export function sshBaseArgs(settings: SshSettings): string[] {
  return [
    ...(settings.configFile ? ['-F', settings.configFile] : []),
    '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${settings.connectTimeoutSeconds}`,
    '-o',
    'ControlMaster=no',
    '-o',
    'ControlPath=none',
    '-o',
    'UpdateHostKeys=no',
    '-o',
    'ForwardAgent=no',
    '-o',
    'ForwardX11=no',
    '-o',
    'ClearAllForwardings=yes',
    '-o',
    'PermitLocalCommand=no',
  ];
}

/** The options for the model tunnel: the same, but for ClearAllForwardings, which would clear its one -R too. */
export function withForwarding(options: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < options.length; index += 1) {
    if (options[index] === '-o' && options[index + 1] === 'ClearAllForwardings=yes') {
      index += 1;
      continue;
    }
    kept.push(options[index]!);
  }
  return kept;
}

/** A list of files for UserKnownHostsFile, each quoted as ssh's config tokens are (a path may have spaces). */
export function knownHostsFilesOption(files: string[]): string {
  for (const file of files) {
    if (/["\n\r\0]/.test(file)) throw new Error(`a known_hosts path ssh cannot be given: ${JSON.stringify(file)}`);
  }
  return `UserKnownHostsFile=${files.map((file) => `"${file}"`).join(' ')}`;
}

export interface SshRun {
  args: string[];
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** Runs ssh (or ssh -G) bounded in time and output, in its own process group, off the event loop. */
export async function runSsh(settings: SshSettings, run: SshRun): Promise<ToolResult> {
  try {
    return await runTool(
      { kind: 'none' },
      {
        command: [settings.program, ...run.args],
        env: settings.env,
        readOnly: [],
        writable: [],
        hiddenPaths: [],
        operatorHome: settings.env.HOME ?? os.homedir(),
        cwd: '/',
        timeoutMs: run.timeoutMs,
        maxOutputBytes: run.maxOutputBytes,
        ...(run.stdin ? { stdin: run.stdin } : {}),
      },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw sshNotInstalled(settings.program);
    throw error;
  }
}
