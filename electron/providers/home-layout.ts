import path from 'node:path';

/** `~`, `~/x` and relative paths in an operator's home override, as their shell would read them. */
export function expandHome(value: string, operatorHome: string): string {
  if (value === '~') return operatorHome;
  if (value.startsWith('~/')) return path.join(operatorHome, value.slice(2));
  return path.resolve(operatorHome, value);
}

/** The folder a CLI's home override in the operator's environment names (CODEX_HOME=...), or null. */
export function operatorOverride(env: Readonly<Record<string, string | undefined>>, name: string, operatorHome: string): string | null {
  const value = env[name];
  return value ? expandHome(value, operatorHome) : null;
}

/** Files of one folder of the operator's, linked at the same names in the task's provider home. */
export function filesIn(dir: string, names: readonly string[]): LinkedFile[] {
  return names.map((name) => ({ source: path.join(dir, name), relativePath: name }));
}

/** The provider's home: `<cache>/<folder>`, named by `<variable>` in the run's environment. */
export interface ProviderHomeLayout {
  /** CODEX_HOME, CLAUDE_CONFIG_DIR, ...: confinement reserves every definition's. */
  readonly variable: string;
  /** A single folder name inside the task's cache directory. */
  readonly folder: string;
  /**
   * The operator's own auth and config files a preconfigured home links (never copies), honouring the
   * CLI's own home override in the operator's environment.
   */
  operatorFiles(operatorHome: string, operatorEnv: Readonly<Record<string, string | undefined>>): LinkedFile[];
}

export interface LinkedFile {
  /** Where the operator keeps it. */
  source: string;
  /** Where the CLI looks for it, relative to the task's provider home. */
  relativePath: string;
}
