import path from 'node:path';
import type { LinkedFile } from './provider-definition';

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
