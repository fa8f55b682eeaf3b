import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveExecutable } from '../pty/pty-session';
import type { Owner } from '../platform/safe-path';
import { runTool, type ToolIsolation, type ToolResult } from '../sandbox/tool-sandbox';
import { findSpecialFiles, gitOpensByName, unreadableRunFiles, type SpecialFile, type SpecialFileScan } from './unreadable-run-files';

/**
 * Git for the console's questions about a run's files (the diff, its file list), which the run may
 * have written: hardened so that nothing the run wrote can make git run a program, and run in a tool
 * sandbox (sandbox/tool-sandbox.ts) so that even a git bug could reach nothing.
 *
 * Git never reads the run's repository as a repository: no config, no hooks, no `commondir`, no
 * worktree links. It reads only data: the objects (as alternates), a copy of the index, and the work
 * tree, through a throwaway git dir the console writes for each question
 * (`<scratch>/git`, config included). No system or global config, no attributes file, hooks path
 * /dev/null, fsmonitor and the untracked cache off, no external diff or textconv (the callers pass
 * --no-ext-diff --no-textconv), submodules and nested repositories never entered, no protocol
 * allowed, a fixed environment (never the operator's), a time limit and an output cap.
 *
 * Nor can what the run wrote make git wait: before git runs, the run's work tree and object store are
 * looked through for FIFOs, sockets and devices where git would open a file (unreadable-run-files.ts),
 * and those are refused, naming them. Should git still be stopped at its time limit (the run, still
 * going, made one meanwhile), the folders are looked through again to name it; a timeout is never
 * run again.
 */

export interface HardenedGitSpace {
  isolation: ToolIsolation;
  operatorHome: string;
  /** Hidden inside the tool sandbox: the console's data directory, the project. */
  hiddenPaths: string[];
  /** The run's files git reads: the work tree, object folders, the folder holding the index copied. */
  readOnly: string[];
  /** What git may write besides its scratch folder (a work tree it checks out); nothing by default. */
  writable?: string[];
  /** The object folders git reads (the run's own, then the ones it borrows), read-only. */
  objectDirs: string[];
  /**
   * The ones among `objectDirs` the run could write (its store's): looked through with the work tree
   * for what git must not open. The project's, which the run only reads, are not.
   */
  runObjectDirs: string[];
  workTree: string;
  objectFormat: 'sha1' | 'sha256';
  /** The sandbox's user, who must be able to write the scratch folder. */
  user: Owner | null;
  /**
   * Where git writes new objects (a commit in the run's store): one of `objectDirs`, which the caller
   * also lists in `writable`. Default: the scratch folder, so nothing of the run's is written.
   */
  objectDirectory?: string;
  /** Variables added for this git (GIT_AUTHOR_*, GIT_COMMITTER_*); never a path or a program git would run. */
  env?: Record<string, string>;
}

export interface HardenedGit {
  /** Runs `git <args>`; a non-zero exit (unless allowed) or a timeout is a GitToolError. */
  run(args: string[], options?: { stdin?: Buffer; maxOutputBytes?: number; timeoutMs?: number; okExitCodes?: number[] }): Promise<ToolResult>;
  /**
   * Refuses (unreadable_run_file) a FIFO, socket or device the run left in place of a file the index
   * tracks, which git would try to hash. Called once the index is the one git compares the work tree
   * with; `trackedPaths` are its entries.
   */
  refuseUnreadableTracked(trackedPaths: Iterable<string>): void;
  /** The temporary index file the questions share (see the caller for what goes in it). */
  readonly indexFile: string;
  readonly scratch: string;
  dispose(): Promise<void>;
}

export class GitToolError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly result: ToolResult,
  ) {
    super(gitToolMessage(args, result));
    this.name = 'GitToolError';
  }
}

function gitToolMessage(args: readonly string[], result: ToolResult): string {
  const verb = args.find((arg) => !arg.startsWith('-')) ?? 'command';
  if (result.timedOut) return `git ${verb} did not finish in time on the run's files and was stopped.`;
  return `git ${verb} failed on the run's files (exit ${result.exitCode ?? result.signal}): ${result.stderr.trim() || 'no output'}`;
}

/**
 * Settings on the command line, which beats every config file git might still find. Exported as the
 * plain list too: the console's git on an SSH host runs with the same (hosts/remote-git).
 */
export const hardenedGitSettings = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.quotePath=false',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'core.sshCommand=false',
  'core.alternateRefsCommand=',
  'diff.external=',
  'diff.ignoreSubmodules=all',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'protocol.allow=never',
  'safe.directory=*',
];
/** The variables every hardened git gets, besides where it works (GIT_DIR, the objects) and its PATH and HOME. */
export const hardenedGitVariables: Readonly<Record<string, string>> = {
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_LITERAL_PATHSPECS: '1',
};

const hardenedGitConfig = hardenedGitSettings.flatMap((setting) => ['-c', setting]);

const defaultTimeoutMs = 60_000;
/** Looking through the run's folders before git runs: well under a second for a usual project. */
const scanTimeoutMs = 30_000;
/** Looking again once git was stopped: only to name what it likely waited on. */
const rescanTimeoutMs = 10_000;
const defaultMaxOutputBytes = 64 * 1024 * 1024;

let gitExecutable: string | null = null;

/** git on the console's PATH, found once: the sandbox runs exactly this file. */
function gitPath(): string {
  gitExecutable ??= resolveExecutable('git', process.env, '/');
  return gitExecutable;
}

/**
 * Opens a scratch folder with a throwaway git dir for one set of questions about a run's files, once
 * the run's folders hold nothing git would open and wait on (else unreadable_run_file).
 */
export async function openHardenedGit(space: HardenedGitSpace): Promise<HardenedGit> {
  const scan: SpecialFileScan = {
    isolation: space.isolation,
    operatorHome: space.operatorHome,
    hiddenPaths: space.hiddenPaths,
    folders: [space.workTree, ...space.runObjectDirs],
    timeoutMs: scanTimeoutMs,
  };
  const found = await findSpecialFiles(scan);
  // A listing cut short (thousands of them) is refused as a whole.
  const refused = found.complete ? found.files.filter((special) => gitOpensByName(special, space.workTree)) : found.files;
  if (refused.length > 0) throw unreadableRunFiles(refused, space.workTree, { more: !found.complete });
  // The rest are left for the index to judge: git hashes them if it tracks them, and never opens them if not.
  const elsewhere = found.files;
  const seen = new Set(elsewhere.map((special) => special.file));

  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'operator-console-git-'));
  const gitDir = path.join(scratch, 'git');
  const home = path.join(scratch, 'home');
  await fs.mkdir(path.join(gitDir, 'refs'), { recursive: true });
  await fs.mkdir(path.join(gitDir, 'objects'), { recursive: true });
  await fs.mkdir(home);
  await fs.writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/operator-console-none\n');
  const config =
    space.objectFormat === 'sha256'
      ? '[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectFormat = sha256\n'
      : '[core]\n\trepositoryformatversion = 0\n\tbare = false\n';
  await fs.writeFile(path.join(gitDir, 'config'), config);
  if (space.user) {
    for (const entry of [scratch, gitDir, path.join(gitDir, 'refs'), path.join(gitDir, 'objects'), home, path.join(gitDir, 'HEAD'), path.join(gitDir, 'config')]) {
      await fs.lchown(entry, space.user.uid, space.user.gid);
    }
  }
  const indexFile = path.join(scratch, 'index');
  const git = gitPath();
  const objectDirectory = space.objectDirectory ?? path.join(gitDir, 'objects');
  const env: Record<string, string> = {
    ...space.env,
    PATH: [...new Set([path.dirname(git), '/usr/bin', '/bin'])].join(':'),
    HOME: home,
    ...hardenedGitVariables,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: space.workTree,
    GIT_INDEX_FILE: indexFile,
    // Git's own writes (the empty blob an intent-to-add records) go to the scratch folder, and the
    // run's objects are only ever read, as alternates; unless the caller names where a commit it
    // makes for the run goes.
    GIT_OBJECT_DIRECTORY: objectDirectory,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: space.objectDirs.filter((folder) => folder !== objectDirectory).join(':'),
  };
  /** After a timeout: what the run made meanwhile is the likely reason (what was there before was judged). */
  const whyStopped = async (): Promise<SpecialFile[]> => {
    const again = await findSpecialFiles({ ...scan, timeoutMs: rescanTimeoutMs }).catch(() => null);
    return again?.files.filter((special) => !seen.has(special.file)) ?? [];
  };
  return {
    indexFile,
    scratch,
    refuseUnreadableTracked: (trackedPaths) => {
      if (elsewhere.length === 0) return;
      const tracked = new Set(trackedPaths);
      const hashed = elsewhere.filter((special) => tracked.has(path.relative(space.workTree, special.file)));
      if (hashed.length > 0) throw unreadableRunFiles(hashed, space.workTree);
    },
    run: async (args, options = {}) => {
      const result = await runTool(space.isolation, {
        command: [git, ...hardenedGitConfig, ...args],
        env,
        readOnly: space.readOnly,
        writable: [scratch, ...(space.writable ?? [])],
        hiddenPaths: space.hiddenPaths,
        operatorHome: space.operatorHome,
        cwd: space.workTree,
        timeoutMs: options.timeoutMs ?? defaultTimeoutMs,
        maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
        ...(options.stdin ? { stdin: options.stdin } : {}),
      });
      if (result.timedOut) {
        const culprits = await whyStopped();
        if (culprits.length > 0) throw unreadableRunFiles(culprits, space.workTree, { appeared: true });
      }
      const ok = !result.timedOut && result.exitCode !== null && (options.okExitCodes ?? [0]).includes(result.exitCode);
      // A cut output is an answer (the caller asked for at most so much); anything else that stopped git is not.
      if (!ok && !result.truncated) throw new GitToolError(args, result);
      return result;
    },
    // Only the hardened git wrote here (no program of the run's ever runs), so removing it is plain.
    dispose: () => fs.rm(scratch, { recursive: true, force: true }),
  };
}
