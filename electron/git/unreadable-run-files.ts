import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import type { GitFailureReason } from './git-failure-reasons';
import { runTool, type ToolIsolation } from '../sandbox/tool-sandbox';

/**
 * What a run left where git opens a file, that is not one: a FIFO (git's open waits for a writer that
 * never comes, until the time limit), a socket or a device. The console's git on a run's files
 * (hardened-git.ts) opens, besides every file it hashes, the `.gitignore` of each folder it walks,
 * every `.gitattributes`, `.mailmap` and `.gitmodules`, what a nested repository's `.git` holds (its
 * HEAD, its commondir) and the run's object store (info/alternates, packs, loose objects). Git's own
 * code does not look before it opens, and git is not ours to change, so the console looks first: a
 * listing of the FIFOs, sockets and devices in the run's folders, by type only (`find` reads folders
 * and never opens anything else), inside the tool sandbox with a time limit. One of them where git
 * reads by name, or in the object store, is refused before git runs; one elsewhere in the work tree is
 * refused once the index says git would hash it (a tracked file); the rest git never opens (an
 * untracked socket, a FIFO in an ignored folder), and they are left alone.
 *
 * Each refusal names the files, so the operator knows what to delete: code `git_failed`, reason
 * `unreadable_run_file` (git-errors.ts).
 */

export type SpecialFileKind = 'FIFO' | 'socket' | 'device';

export interface SpecialFile {
  /** Absolute, as the console sees it. */
  file: string;
  kind: SpecialFileKind;
}

export interface SpecialFileScan {
  isolation: ToolIsolation;
  operatorHome: string;
  hiddenPaths: string[];
  /** The folders to look through: the run's work tree, its object store. */
  folders: string[];
  timeoutMs: number;
}

/** Names of files git opens wherever it meets them in a work tree; `.git` is a nested repository's. */
const namesGitOpens = new Set(['.gitignore', '.gitattributes', '.mailmap', '.gitmodules', '.git']);

/** Beyond this much output (thousands of them), the run is refusing to be read: it is refused. */
const maxListingBytes = 256 * 1024;

const kinds: Record<string, SpecialFileKind> = { p: 'FIFO', s: 'socket', d: 'device' };

const findPath = existsSync('/usr/bin/find') ? '/usr/bin/find' : '/bin/find';
const printfPath = existsSync('/usr/bin/printf') ? '/usr/bin/printf' : '/bin/printf';

/**
 * One `find` over all the folders: each FIFO, socket and device printed with a letter for its kind.
 * `-P` (the default) never follows a link; `printf` is POSIX, so the line is the same with BSD find.
 */
function findCommand(folders: string[]): string[] {
  const print = (letter: string) => ['-exec', printfPath, `${letter}%s\\0`, '{}', '+'];
  return [
    findPath,
    '-P',
    ...folders,
    ...['(', '-type', 'p', ...print('p'), ')'],
    ...['-o', '(', '-type', 's', ...print('s'), ')'],
    ...['-o', '(', '(', '-type', 'b', '-o', '-type', 'c', ')', ...print('d'), ')'],
  ];
}

/**
 * The FIFOs, sockets and devices under `folders`. A folder `find` may not read is skipped (git, which
 * runs as the same user, cannot read it either). Took longer than `timeoutMs`: an OperatorError, for
 * git would not be run on what was not looked at.
 */
export async function findSpecialFiles(scan: SpecialFileScan): Promise<{ files: SpecialFile[]; complete: boolean }> {
  const folders: string[] = [];
  for (const folder of scan.folders) {
    if ((await fs.lstat(folder).catch(() => null))?.isDirectory()) folders.push(folder);
  }
  if (folders.length === 0) return { files: [], complete: true };
  const result = await runTool(scan.isolation, {
    command: findCommand(folders),
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    readOnly: folders,
    writable: [],
    hiddenPaths: scan.hiddenPaths,
    operatorHome: scan.operatorHome,
    cwd: '/',
    timeoutMs: scan.timeoutMs,
    maxOutputBytes: maxListingBytes,
  });
  if (result.timedOut) {
    throw new OperatorError({
      code: 'git_failed',
      reason: 'timed_out' satisfies GitFailureReason,
      message:
        `The console could not look through the run’s files in ${Math.round(scan.timeoutMs / 1000)} s (it looks for FIFOs and sockets git would wait on before it runs git there), so it did not run git. ` +
        `The run’s folder ${folders[0]} may hold a very great many files, or its disk is slow: open it and look at what the agent left there, then try again.`,
    });
  }
  const entries = result.stdout.toString('utf8').split('\0');
  // The last entry of a cut listing may be cut too.
  if (result.truncated) entries.pop();
  const files = entries.filter(Boolean).map((entry) => ({ file: entry.slice(1), kind: kinds[entry[0]!] ?? 'device' }));
  return { files, complete: !result.truncated };
}

/** Git opens it whatever the index says: in the object store, or named as git reads by name in the work tree. */
export function gitOpensByName(special: SpecialFile, workTree: string): boolean {
  const relative = path.relative(workTree, special.file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return true;
  return relative.split(path.sep).some((part) => namesGitOpens.has(part));
}

/** As the operator finds it: relative to the run's folder, or whole when outside it (in the object store). */
function shown(special: SpecialFile, workTree: string): string {
  const relative = path.relative(workTree, special.file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? special.file : relative;
}

const shownAtMost = 5;

/**
 * The refusal naming what the run left. `appeared`: found after git was stopped at its time limit,
 * made while git ran (the run is still going), so the likely thing git waited on.
 */
export function unreadableRunFiles(files: SpecialFile[], workTree: string, options: { appeared?: boolean; more?: boolean } = {}): OperatorError {
  const named = files
    .map((special) => `${shown(special, workTree)} (a ${special.kind})`)
    .sort()
    .slice(0, shownAtMost);
  const others = files.length - named.length;
  const list = `${named.join(', ')}${others > 0 || options.more ? `, and ${others > 0 ? `${others} more` : 'more'}` : ''}`;
  const one = files.length === 1 && !options.more;
  const what = one ? 'it' : 'them';
  const place = `where git reads ${one ? 'a file' : 'files'}`;
  const where = `in the run’s folder ${workTree}`;
  const message = options.appeared
    ? `git did not finish in time on the run’s files and was stopped. Meanwhile the run made ${list} ${place}: likely what git waited on. ` +
      `Stop the run or let it end, delete ${what} (${where}), then try again.`
    : `The run left ${list} ${place}, so the console did not run git on the run’s files (git would wait on ${what} forever, or fail). ` +
      `Delete ${what} (${where}), or discard the run, then try again.`;
  return new OperatorError({ code: 'git_failed', reason: 'unreadable_run_file' satisfies GitFailureReason, message });
}
