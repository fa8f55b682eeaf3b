import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { copyPatternProblem } from '../../shared/project-setup-rules';
import { readRegularFile, UnsafePathError, writeFileWithin, type Owner } from '../platform/safe-path';

/**
 * "Files to copy into each run" (a project's setup): the files a run needs that its view does not
 * have, usually because git ignores them (`.env`, `config/*.local.json`), copied from the project
 * folder into the run's view each time the run is prepared.
 *
 * Both ends are treated as hostile. From the project: a link is followed only to a regular file
 * inside the project (a `.env` linked to `~/.aws/credentials` is not copied), never into a `.git`
 * folder, never a FIFO or device, never a folder walked through a link, at most `maxFileBytes` a file.
 * Into the view, which the run's earlier attempts could write: every folder on the way must be a
 * real folder (a link there is left alone and the file is not written), and whatever is at the file's
 * own place (a link, a FIFO, a file) is unlinked and a new file made with O_EXCL | O_NOFOLLOW, so
 * nothing is ever written through what the agent left (platform/safe-path.ts).
 */

export const maxFileBytes = 16 * 1024 * 1024;
/** More matches than this are not copied (a pattern that matches half a project is a mistake). */
export const maxCopiedFiles = 1000;
/** Folders a walk looks into before it gives up on a pattern. */
const maxFoldersWalked = 5000;
/** How deep a `**` pattern walks. */
const maxDepth = 24;

export interface CopyProjectFilesInput {
  /** The project folder, resolved (task-root.ts resolves it). */
  projectPath: string;
  /** The task root: a folder the console owns, which holds the view. */
  taskRoot: string;
  /** The view, `<taskRoot>/view`. */
  view: string;
  patterns: readonly string[];
  /** The console's data directory: never copied, should it lie inside the project. */
  dataDir: string;
  /** A sandboxed run's user when the console is root: the copies are handed to it. */
  owner?: Owner | null;
}

export interface CopiedFile {
  /** Relative to the project folder and the view, with `/` between folders. */
  path: string;
  bytes: number;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface CopyProjectFilesResult {
  copied: CopiedFile[];
  skipped: SkippedFile[];
}

export async function copyProjectFiles(input: CopyProjectFilesInput): Promise<CopyProjectFilesResult> {
  const copied: CopiedFile[] = [];
  const skipped: SkippedFile[] = [];
  const seen = new Set<string>();
  for (const pattern of input.patterns) {
    const problem = copyPatternProblem(pattern);
    if (problem) {
      skipped.push({ path: pattern, reason: problem });
      continue;
    }
    const matches = await matchProjectFiles(input, pattern.trim(), skipped);
    if (matches.length === 0) skipped.push({ path: pattern.trim(), reason: 'nothing in the project folder matches it' });
    for (const relative of matches) {
      if (seen.has(relative)) continue;
      seen.add(relative);
      if (copied.length >= maxCopiedFiles) {
        skipped.push({ path: relative, reason: `more than ${maxCopiedFiles} files matched; the rest were not copied` });
        continue;
      }
      const outcome = await copyOne(input, relative);
      if ('reason' in outcome) skipped.push(outcome);
      else copied.push(outcome);
    }
  }
  return { copied, skipped };
}

/**
 * The project's paths (relative, `/`-separated) that match `pattern`: a walk from the pattern's fixed
 * folder (`config` for `config/*.local.json`), as deep as the pattern can reach, through real folders
 * only, never into `.git` or the data directory.
 */
async function matchProjectFiles(input: CopyProjectFilesInput, pattern: string, skipped: SkippedFile[]): Promise<string[]> {
  const isMatch = picomatch(pattern, { dot: true });
  const scan = picomatch.scan(pattern);
  if (!scan.isGlob) {
    return (await kindInProject(input, pattern)) === 'missing' ? [] : [pattern];
  }
  const base = scan.base;
  const depth = pattern.includes('**') ? maxDepth : pattern.split('/').length - (base ? base.split('/').length : 0);
  if (base && (await kindInProject(input, base)) !== 'dir') return [];
  const matches: string[] = [];
  let walked = 0;
  const walk = async (relativeDir: string, level: number): Promise<void> => {
    if (walked++ >= maxFoldersWalked) {
      skipped.push({ path: pattern, reason: `matching it looked into more than ${maxFoldersWalked} folders; the rest were not looked at` });
      return;
    }
    let entries: Dirent[];
    try {
      entries = await fs.readdir(path.join(input.projectPath, relativeDir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === '.git') continue;
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      if (isInside(path.join(input.projectPath, relative), input.dataDir)) continue;
      if (!entry.isDirectory() && isMatch(relative)) matches.push(relative);
      // Only real folders are walked: readdir's Dirent does not follow a link.
      if (entry.isDirectory() && level + 1 < depth && walked < maxFoldersWalked) await walk(relative, level + 1);
    }
  };
  await walk(base, 0);
  return matches;
}

/** What is at a project path, reached through real folders only (a linked folder is not walked into). */
async function kindInProject(input: CopyProjectFilesInput, relative: string): Promise<'missing' | 'dir' | 'other'> {
  let current = input.projectPath;
  const parts = relative.split('/');
  for (const [index, part] of parts.entries()) {
    current = path.join(current, part);
    let stat;
    try {
      stat = await fs.lstat(current);
    } catch {
      return 'missing';
    }
    if (index < parts.length - 1 && !stat.isDirectory()) return 'missing';
    if (index === parts.length - 1) return stat.isDirectory() ? 'dir' : 'other';
  }
  return 'missing';
}

async function copyOne(input: CopyProjectFilesInput, relative: string): Promise<CopiedFile | SkippedFile> {
  const source = path.join(input.projectPath, relative);
  if (relative.split('/').includes('.git')) return { path: relative, reason: 'a .git path is never copied' };
  let stat;
  try {
    stat = await fs.lstat(source);
  } catch {
    return { path: relative, reason: 'it went missing before it could be copied' };
  }
  let readFrom = source;
  if (stat.isSymbolicLink()) {
    // A link is followed only to a regular file inside the project, outside .git and the data directory.
    let target: string;
    try {
      target = await fs.realpath(source);
    } catch {
      return { path: relative, reason: 'a link to nothing' };
    }
    if (!isInside(target, input.projectPath)) return { path: relative, reason: 'a link out of the project folder, which is never followed' };
    if (path.relative(input.projectPath, target).split(path.sep).includes('.git')) return { path: relative, reason: 'a link into .git, which is never followed' };
    if (isInside(target, input.dataDir)) return { path: relative, reason: 'a link into the console’s data folder, which is never followed' };
    readFrom = target;
    stat = await fs.lstat(target);
  }
  if (stat.isDirectory()) return { path: relative, reason: 'a folder: name the files in it (for example folder/**)' };
  if (!stat.isFile()) return { path: relative, reason: 'not a regular file (a FIFO, socket or device)' };
  if (stat.size > maxFileBytes) return { path: relative, reason: `larger than ${maxFileBytes / (1024 * 1024)} MiB` };
  let content: Buffer | null;
  try {
    content = await readRegularFile(readFrom, maxFileBytes);
  } catch (error) {
    return { path: relative, reason: error instanceof UnsafePathError ? 'it changed while it was read' : `it could not be read (${(error as Error).message})` };
  }
  if (!content) return { path: relative, reason: 'it went missing before it could be copied' };
  try {
    await writeFileWithin(input.taskRoot, path.join(path.relative(input.taskRoot, input.view), ...relative.split('/')), content, {
      mode: stat.mode & 0o777,
      owner: input.owner ?? null,
      keepLinkedFolders: true,
    });
  } catch (error) {
    if (error instanceof UnsafePathError) {
      const where = path.relative(input.view, error.file).split(path.sep).join('/');
      return { path: relative, reason: `the run’s view has ${error.found} at ${where}; the console does not write through it` };
    }
    throw error;
  }
  return { path: relative, bytes: content.length };
}

function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
