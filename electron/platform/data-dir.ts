import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface DataDirSources {
  /** `--data-dir` on the command line: the most explicit, so it wins. */
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Electron's `app.getPath('userData')`, when running as the desktop app. */
  electronUserData?: string | undefined;
  platform?: NodeJS.Platform;
  home?: string;
}

/** Where the ledger, task roots and keys live. Both the desktop app and the browser host use this. */
export function resolveDataDir(sources: DataDirSources = {}): string {
  const env = sources.env ?? process.env;
  const chosen = sources.flag || env.OPERATOR_CONSOLE_DATA_DIR || sources.electronUserData;
  if (chosen) return path.resolve(chosen);
  const home = sources.home ?? homedir();
  switch (sources.platform ?? process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Operator Console');
    case 'win32':
      return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Operator Console');
    default:
      return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'operator-console');
  }
}

/** Creates the data directory, private to the operator: it will hold keys and run output. */
export function ensureDataDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return dataDir;
}
