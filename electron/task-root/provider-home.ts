import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SandboxOverlay } from '../sandbox/bwrap';
import type { DeliveredFile } from '../providers/credential-delivery';
import type { ProviderHomeLayout } from '../providers/home-layout';
import type { EnvironmentVariable } from '../sandbox/confined-environment';
import { ensureFileSlotWithin, ensureFolderWithin, inspectWithin, unlinkWithin, UnsafePathError, writeFileWithin, type Owner } from '../platform/safe-path';

/**
 * The provider's home inside the task's cache (`<cache>/codex-home`, ...). The CLI keeps its runtime
 * state there (sessions, logs, caches), so a run never writes into the operator's own CLI folder.
 *
 * - preconfigured: the operator's own login. Their auth and config files are symbolic links, not
 *   copies, so a single-use refresh token rotated by the CLI stays valid for the operator too.
 * - isolated: an empty home. A managed AI connection's files are delivered for the run and removed
 *   afterwards (`deliverCredentialFiles`).
 *
 * The provider home sits in the task's cache, which the agent can write: it may have replaced the
 * home, or a folder in it, by a link to the operator's own files. So the console works in it only
 * through platform/safe-path.ts (no link followed in any component, `cache` being the first the agent owns).
 */

export type HomeMode = 'preconfigured' | 'isolated';

export interface ProviderHomeLink {
  /** The link inside the task's provider home. */
  path: string;
  /** The operator's file it points at (bound read-only into an OS sandbox). */
  target: string;
}

export interface PrepareProviderHomeInput {
  /** The CLI's home layout (its definition's); null for a program with none (a generic command). */
  home: ProviderHomeLayout | null;
  mode: HomeMode;
  /** `<taskRoot>/cache`: the task root above it is the console's, and where every path check starts. */
  cache: string;
  operatorHome: string;
  /** The operator's environment, for the CLIs' own home overrides (CODEX_HOME, ...). */
  operatorEnv: Record<string, string | undefined>;
}

export interface ProviderHome {
  /** Null for a provider the console has no home layout for (a generic command). */
  homeVar: EnvironmentVariable | null;
  /** The folder the home variable names; null with `homeVar`. */
  dir: string | null;
  links: ProviderHomeLink[];
}

export async function prepareProviderHome(input: PrepareProviderHomeInput & { owner?: Owner | null }): Promise<ProviderHome> {
  if (!input.home) return { homeVar: null, dir: null, links: [] };
  // One folder directly in the cache: nothing a definition says may point the home elsewhere.
  if (!/^[A-Za-z0-9._-]+$/.test(input.home.folder) || /^\.+$/.test(input.home.folder)) {
    throw new Error(`A provider home must be one folder inside the task's cache: ${input.home.folder}`);
  }
  const dir = path.join(input.cache, input.home.folder);
  const homeVar = { name: input.home.variable, value: dir };
  const taskRoot = path.dirname(input.cache);
  const inTask = (file: string) => path.relative(taskRoot, file);
  // A link the agent left in place of the home (or a folder on the way) is replaced by a real folder.
  await ensureFolderWithin(taskRoot, inTask(dir), { owner: input.owner ?? null, replaceLinks: true });
  const files = input.home.operatorFiles(input.operatorHome, input.operatorEnv);

  if (input.mode === 'isolated') {
    // A home prepared earlier in the other mode must not keep pointing at the operator's files.
    for (const file of files) await removeIfLink(taskRoot, inTask(path.join(dir, file.relativePath)));
    return { homeVar, dir, links: [] };
  }

  const links: ProviderHomeLink[] = [];
  for (const file of files) {
    const linkPath = path.join(dir, file.relativePath);
    if (!(await isFile(file.source))) {
      // The operator has no such file (not logged in, no config): a stale link must not linger.
      await removeIfLink(taskRoot, inTask(linkPath));
      continue;
    }
    await ensureFolderWithin(taskRoot, path.dirname(inTask(linkPath)), { owner: input.owner ?? null, replaceLinks: true });
    await placeLink(linkPath, file.source);
    links.push({ path: linkPath, target: file.source });
  }
  return { homeVar, dir, links };
}

/**
 * Points `linkPath` at `target`, replacing a stale link or a file the CLI left in its place (its
 * folders were made real by the caller). A folder there is left alone and refused.
 */
async function placeLink(linkPath: string, target: string): Promise<void> {
  try {
    const stat = await fs.lstat(linkPath);
    if (stat.isSymbolicLink() && (await fs.readlink(linkPath)) === target) return;
    if (stat.isDirectory()) throw new UnsafePathError(linkPath, 'a folder');
    await fs.unlink(linkPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.symlink(target, linkPath);
}

async function removeIfLink(taskRoot: string, relative: string): Promise<void> {
  if ((await inspectWithin(taskRoot, relative)).kind === 'link') await unlinkWithin(taskRoot, relative);
}

async function isFile(candidate: string): Promise<boolean> {
  try {
    return (await fs.stat(candidate)).isFile();
  } catch {
    return false;
  }
}

export interface DeliveredCredentials {
  /** Bubblewrap: each file bound read-only from the console's folder at the path the CLI reads. */
  overlays: SandboxOverlay[];
  /** Where the CLI reads the files (and, for Seatbelt, the folders on the way), to protect. */
  paths: string[];
  /** Removes what was delivered; called when the attempt ends, whatever its outcome. */
  remove(): Promise<void>;
}

/** The console's own folder for a run's delivered files: in the task root, outside every writable root. */
export const deliveredFolderName = 'delivered';

export interface DeliverCredentialFilesInput {
  /** The task root (the console's; its `cache` holds the provider home). */
  taskRoot: string;
  providerHome: string;
  files: DeliveredFile[];
  /**
   * `bind`: the files live in `<taskRoot>/delivered` and reach a bubblewrap sandbox by read-only bind
   * mounts: nothing is written where the agent can write. `write`: into the provider home itself, for
   * a run without a mount namespace (local, or Seatbelt, whose profile then forbids changing them).
   */
  placement: 'bind' | 'write';
  /** A sandboxed run's user when the console is root: it must be able to read the files. */
  owner?: Owner | null;
}

/** Delivers a managed connection's files into an isolated provider home, readable by their user only. */
export async function deliverCredentialFiles(input: DeliverCredentialFilesInput): Promise<DeliveredCredentials> {
  const owner = input.owner ?? null;
  const inTask = (file: string) => path.relative(input.taskRoot, file);
  const targets = input.files.map((file) => {
    const target = path.resolve(input.providerHome, file.relativePath);
    const relative = path.relative(input.providerHome, target);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new Error(`A delivered file must stay inside the provider home: ${file.relativePath}`);
    }
    return { file, target, relative };
  });
  if (input.placement === 'write') {
    const written: string[] = [];
    const remove = async () => {
      for (const file of written) await unlinkWithin(input.taskRoot, inTask(file));
    };
    try {
      for (const { file, target } of targets) {
        // Never through a link (it could point at the operator's own auth file), in any component.
        written.push(await writeFileWithin(input.taskRoot, inTask(target), file.content, { mode: 0o600, owner }));
      }
    } catch (error) {
      await remove();
      throw error;
    }
    const folders = [...new Set(written.map((file) => path.dirname(file)))];
    return { overlays: [], paths: [...written, ...folders], remove };
  }

  const folder = path.join(input.taskRoot, deliveredFolderName);
  const slots: string[] = [];
  const remove = async () => {
    await fs.rm(folder, { recursive: true, force: true });
    // The empty files bubblewrap mounted over: nothing can have changed them (they were covered).
    for (const slot of slots) await unlinkWithin(input.taskRoot, inTask(slot));
  };
  try {
    await fs.rm(folder, { recursive: true, force: true });
    await fs.mkdir(folder, { mode: 0o700 });
    if (owner) await fs.lchown(folder, owner.uid, owner.gid);
    const overlays: SandboxOverlay[] = [];
    for (const { file, target, relative } of targets) {
      const source = await writeFileWithin(folder, relative, file.content, { mode: 0o600, owner });
      slots.push(await ensureFileSlotWithin(input.taskRoot, inTask(target), { owner }));
      overlays.push({ source, dest: target });
    }
    return { overlays, paths: slots, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Removes connection files a dead console may have left: its own folder, and files written into the home. */
export async function removeLeftoverDelivery(taskRoot: string, providerHome: string, relativePaths: readonly string[]): Promise<number> {
  let removed = 0;
  await fs.rm(path.join(taskRoot, deliveredFolderName), { recursive: true, force: true });
  for (const relative of relativePaths) {
    if (await unlinkWithin(taskRoot, path.relative(taskRoot, path.join(providerHome, relative)))) removed += 1;
  }
  return removed;
}
