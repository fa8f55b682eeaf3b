import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { bwrapCommand, buildToolBwrapArgs, setprivPath, type SandboxSetup } from './bwrap';
import type { Logger } from '../platform/log';
import { sandboxUser } from './sandbox-user';
import { writeSeccompFilter } from './seccomp';
import { buildSeatbeltArgs, sandboxExecPath } from './seatbelt';

export type SandboxLevel = 'bubblewrap' | 'seatbelt' | 'none';

export interface SandboxProbe {
  available: boolean;
  level: SandboxLevel;
  reason?: string;
  /** What the operator can install or enable; shown in the `sandbox_unavailable` notice. */
  hint?: string;
  /** How runs and the console's tools are sandboxed here (Linux); null where the level says none or Seatbelt. */
  setup: SandboxSetup | null;
}

export interface ProbeSandboxOptions {
  /** Where the seccomp filter is written (a folder of the console's data directory). */
  stateDir: string;
  /** The operator's home, hidden in the probe's sandbox as in every other. */
  operatorHome?: string;
  platform?: NodeJS.Platform;
  bwrapPath?: string;
  sandboxExecPath?: string;
  timeoutMs?: number;
}

const bubblewrapInstallHint =
  'Install bubblewrap (apt install bubblewrap, or dnf install bubblewrap) and allow unprivileged user namespaces.';
const userNamespaceHint =
  'Allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 on Debian; on Ubuntu 24.04 and later, ' +
  'sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile that lets bwrap use user namespaces.';

/**
 * Starts a throwaway sandbox built exactly as the console's sandboxes are (the same mounts,
 * namespaces, user, capabilities and seccomp filter; see bwrap.ts) and reports whether it worked, and
 * with what. Runs in a sandboxed environment are refused with `sandbox_unavailable` and this hint when
 * it did not.
 */
export async function probeSandbox(options: ProbeSandboxOptions): Promise<SandboxProbe> {
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (platform === 'linux') {
    const bwrap = options.bwrapPath ?? 'bwrap';
    const user = sandboxUser();
    if (user && !existsSync(setprivPath)) {
      return {
        available: false,
        level: 'none',
        reason: `The console runs as root, and ${setprivPath} (which starts sandboxed programs as an unprivileged user) was not found.`,
        hint: 'Install util-linux (it ships setpriv), or run the console as a normal user.',
        setup: null,
      };
    }
    const setup: SandboxSetup = { seccompFile: await writeSeccompFilter(options.stateDir), user };
    const args = buildToolBwrapArgs({ operatorHome: options.operatorHome ?? homedir(), hiddenPaths: [], readOnly: [], writable: [], cwd: '/', command: ['true'] }, setup);
    const command = bwrapCommand(args, setup, bwrap);
    const result = await tryRun(command.file, command.args, timeoutMs);
    if (result.ok) return { available: true, level: 'bubblewrap', setup };
    if (result.missing) {
      return { available: false, level: 'none', reason: `${bwrap} was not found.`, hint: bubblewrapInstallHint, setup: null };
    }
    const reason = result.timedOut ? `bubblewrap did not finish within ${timeoutMs} ms.` : firstLine(result.stderr) || 'bubblewrap failed.';
    const namespaces = /namespace|uid map|permission denied|operation not permitted/i.test(result.stderr);
    return { available: false, level: 'none', reason, hint: namespaces ? userNamespaceHint : bubblewrapInstallHint, setup: null };
  }
  if (platform === 'darwin') {
    const sandboxExec = options.sandboxExecPath ?? sandboxExecPath;
    const probeArgs = buildSeatbeltArgs({ writableRoots: [], operatorHome: options.operatorHome ?? homedir(), readOnlyRebinds: [], networkMode: 'none', command: ['/usr/bin/true'] });
    const result = await tryRun(sandboxExec, probeArgs, timeoutMs);
    if (result.ok) return { available: true, level: 'seatbelt', setup: null };
    return {
      available: false,
      level: 'none',
      reason: result.missing ? `${sandboxExec} was not found.` : firstLine(result.stderr) || 'sandbox-exec failed.',
      hint: 'sandbox-exec ships with macOS in /usr/bin; check that it has not been removed or blocked by a management profile.',
      setup: null,
    };
  }
  return {
    available: false,
    level: 'none',
    reason: `No OS sandbox is supported on ${platform}.`,
    hint: 'Use a local environment on this machine, or run sandboxed environments on Linux (bubblewrap) or macOS.',
    setup: null,
  };
}

interface RunOutcome {
  ok: boolean;
  missing: boolean;
  timedOut: boolean;
  stderr: string;
}

function tryRun(file: string, args: string[], timeoutMs: number): Promise<RunOutcome> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (!error) {
        resolve({ ok: true, missing: false, timedOut: false, stderr });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      // A shell that cannot find bwrap exits 127.
      const missing = code === 'ENOENT' || (error as { code?: unknown }).code === 127;
      resolve({ ok: false, missing, timedOut: error.killed === true, stderr: stderr || error.message });
    });
  });
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

/** The console's one sandbox probe, started at start-up: its answer once it is in, and a promise of it. */
export interface SandboxCheck {
  /** What admission reads of the answer; null while the probe is still running. */
  state(): { available: boolean; reason?: string | undefined; hint?: string | undefined } | null;
  /** The answer, with how runs are sandboxed; null while the probe is still running or if it failed. */
  current(): SandboxProbe | null;
  /** Settles once the probe answered (null if it failed); it never rejects. */
  ready(): Promise<SandboxProbe | null>;
}

/**
 * Probes once, off the start-up path: a sandboxed run admitted before the answer waits for it at
 * launch. A probe that fails outright counts as no sandbox, with the failure as its reason.
 */
export function startSandboxProbe(options: ProbeSandboxOptions & { log: Logger }): SandboxCheck {
  let state: ReturnType<SandboxCheck['state']> = null;
  let probe: SandboxProbe | null = null;
  const { log, ...probeOptions } = options;
  const probed: Promise<SandboxProbe | null> = probeSandbox(probeOptions).then(
    (answer) => {
      probe = answer;
      state = { available: answer.available, reason: answer.reason, hint: answer.hint };
      if (!answer.available) log.warn('OS sandbox unavailable', { reason: answer.reason });
      return answer;
    },
    (error: unknown) => {
      log.error('sandbox probe failed', { error: String(error) });
      state = { available: false, reason: `The sandbox probe failed: ${String(error)}`, hint: undefined };
      return null;
    },
  );
  return { state: () => state, current: () => probe, ready: () => probed };
}
