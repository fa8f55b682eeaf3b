import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { knownProvider, providerHomeVariable, type EnvironmentVariable, type KnownProviderId } from './environment';

/**
 * The provider's home inside the task's cache (`<cache>/codex-home`, ...). The CLI keeps its runtime
 * state there (sessions, logs, caches), so a run never writes into the operator's own CLI folder.
 *
 * - preconfigured: the operator's own login. Their auth and config files are symbolic links, not
 *   copies, so a single-use refresh token rotated by the CLI stays valid for the operator too.
 * - isolated: an empty home. A managed AI connection's files are delivered into it for the run and
 *   removed afterwards (`deliverCredentialFiles` / `removeDeliveredFiles`).
 */

export type HomeMode = 'preconfigured' | 'isolated';

export interface ProviderHomeLink {
  /** The link inside the task's provider home. */
  path: string;
  /** The operator's file it points at (bound read-only into an OS sandbox). */
  target: string;
}

export interface PrepareProviderHomeInput {
  providerId: string;
  mode: HomeMode;
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

interface LinkedFile {
  /** Where the operator keeps it. */
  source: string;
  /** Where the CLI looks for it, relative to the task's provider home. */
  relativePath: string;
}

function expandHome(value: string, operatorHome: string): string {
  if (value === '~') return operatorHome;
  if (value.startsWith('~/')) return path.join(operatorHome, value.slice(2));
  return path.resolve(operatorHome, value);
}

/** The operator's auth and config files for each CLI, honouring the CLI's own home override. */
function operatorFiles(providerId: KnownProviderId, operatorHome: string, env: Record<string, string | undefined>): LinkedFile[] {
  const override = (name: string) => {
    const value = env[name];
    return value ? expandHome(value, operatorHome) : null;
  };
  switch (providerId) {
    case 'codex': {
      const dir = override('CODEX_HOME') ?? path.join(operatorHome, '.codex');
      return ['auth.json', 'config.toml'].map((name) => ({ source: path.join(dir, name), relativePath: name }));
    }
    case 'claude': {
      const dir = override('CLAUDE_CONFIG_DIR');
      if (dir) {
        return ['.credentials.json', '.claude.json', 'settings.json'].map((name) => ({ source: path.join(dir, name), relativePath: name }));
      }
      // Without CLAUDE_CONFIG_DIR, Claude Code keeps its global state file beside ~/.claude; with
      // it (as in the task) that file moves inside the folder.
      return [
        { source: path.join(operatorHome, '.claude', '.credentials.json'), relativePath: '.credentials.json' },
        { source: path.join(operatorHome, '.claude.json'), relativePath: '.claude.json' },
        { source: path.join(operatorHome, '.claude', 'settings.json'), relativePath: 'settings.json' },
      ];
    }
    case 'pi': {
      const dir = override('PI_CODING_AGENT_DIR') ?? path.join(operatorHome, '.pi', 'agent');
      return ['auth.json', 'models.json', 'settings.json'].map((name) => ({ source: path.join(dir, name), relativePath: name }));
    }
    case 'gemini': {
      // GEMINI_CLI_HOME replaces the home folder; the CLI's files live in `.gemini` beneath it.
      // `.env` is where an API-key login keeps GEMINI_API_KEY (and a gateway's GOOGLE_GEMINI_BASE_URL):
      // Gemini CLI reads <home>/.gemini/.env when no project folder has one.
      const base = override('GEMINI_CLI_HOME') ?? operatorHome;
      return ['settings.json', 'oauth_creds.json', 'google_accounts.json', '.env'].map((name) => ({
        source: path.join(base, '.gemini', name),
        relativePath: path.join('.gemini', name),
      }));
    }
  }
}

export async function prepareProviderHome(input: PrepareProviderHomeInput): Promise<ProviderHome> {
  const provider = knownProvider(input.providerId);
  const homeVar = providerHomeVariable(input.providerId, input.cache);
  if (!homeVar || !provider) return { homeVar: null, dir: null, links: [] };
  const dir = homeVar.value;
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const files = operatorFiles(provider, input.operatorHome, input.operatorEnv);

  if (input.mode === 'isolated') {
    // A home prepared earlier in the other mode must not keep pointing at the operator's files.
    for (const file of files) await removeIfSymlink(path.join(dir, file.relativePath));
    return { homeVar, dir, links: [] };
  }

  const links: ProviderHomeLink[] = [];
  for (const file of files) {
    const linkPath = path.join(dir, file.relativePath);
    if (!(await isFile(file.source))) {
      // The operator has no such file (not logged in, no config): a stale link must not linger.
      await removeIfSymlink(linkPath);
      continue;
    }
    await fs.mkdir(path.dirname(linkPath), { recursive: true, mode: 0o700 });
    await placeLink(linkPath, file.source);
    links.push({ path: linkPath, target: file.source });
  }
  return { homeVar, dir, links };
}

/** Points `linkPath` at `target`, replacing a stale link or a file the CLI left in its place. */
async function placeLink(linkPath: string, target: string): Promise<void> {
  try {
    const stat = await fs.lstat(linkPath);
    if (stat.isSymbolicLink() && (await fs.readlink(linkPath)) === target) return;
    await fs.rm(linkPath, { recursive: true, force: true });
  } catch {
    // Nothing there yet.
  }
  await fs.symlink(target, linkPath);
}

async function removeIfSymlink(candidate: string): Promise<void> {
  try {
    if ((await fs.lstat(candidate)).isSymbolicLink()) await fs.unlink(candidate);
  } catch {
    // Nothing there.
  }
}

async function isFile(candidate: string): Promise<boolean> {
  try {
    return (await fs.stat(candidate)).isFile();
  } catch {
    return false;
  }
}

export interface DeliveredFile {
  /** Relative to the provider home, e.g. `auth.json`. */
  relativePath: string;
  content: string | Uint8Array;
}

/**
 * Writes a managed connection's files into an isolated provider home, readable by the operator's
 * user only. Returns the absolute paths, to hand to `removeDeliveredFiles` when the run ends.
 */
export async function deliverCredentialFiles(input: { providerHome: string; files: DeliveredFile[] }): Promise<string[]> {
  const written: string[] = [];
  for (const file of input.files) {
    const target = path.resolve(input.providerHome, file.relativePath);
    const relative = path.relative(input.providerHome, target);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new Error(`A delivered file must stay inside the provider home: ${file.relativePath}`);
    }
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    // Never write through a link: it could point at the operator's own auth file.
    await fs.rm(target, { force: true });
    const handle = await fs.open(
      target,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      0o600,
    );
    try {
      await handle.writeFile(file.content);
      await handle.chmod(0o600); // whatever the umask said
    } finally {
      await handle.close();
    }
    written.push(target);
  }
  return written;
}

/** Removes delivered files; called when the run ends, whatever its outcome. */
export async function removeDeliveredFiles(paths: string[]): Promise<void> {
  for (const file of paths) await fs.rm(file, { force: true });
}
