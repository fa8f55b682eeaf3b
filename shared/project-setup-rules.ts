/**
 * What a project's setup settings may hold, checked the same way by the contract (both transports),
 * the core and the renderer's forms, so a form says what the core would refuse before it is sent.
 */

export const maxCopyPatterns = 100;
export const maxSetupCommandLength = 10_000;
export const maxLayerVariables = 200;
export const maxVariableValueLength = 32 * 1024;

/**
 * Why a "files to copy into each run" pattern is refused, or null. Patterns are globs relative to the
 * project folder (`.env`, `.env.*`, `config/*.local.json`): never absolute, never out of the project,
 * never naming a `.git` path, and never the whole project.
 */
export function copyPatternProblem(pattern: string): string | null {
  const trimmed = pattern.trim();
  if (trimmed === '') return 'a pattern cannot be empty';
  if (trimmed.length > 500) return 'a pattern is at most 500 characters';
  if (trimmed.startsWith('/') || trimmed.startsWith('~') || /^[A-Za-z]:/.test(trimmed)) return `“${trimmed}” must be relative to the project folder`;
  if (trimmed.startsWith('!')) return `“${trimmed}” excludes files; list only the files to copy`;
  if (trimmed.includes('\\')) return `“${trimmed}” must use / between folders`;
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '')) return `“${trimmed}” has an empty folder name`;
  if (segments.some((segment) => segment === '.' || segment === '..')) return `“${trimmed}” must stay inside the project folder (no . or ..)`;
  if (segments.some((segment) => segment === '.git')) return `“${trimmed}” names a .git path, which is never copied`;
  if (segments.every((segment) => /^[*?]+$/.test(segment))) return `“${trimmed}” would copy the whole project; name the files a run needs`;
  return null;
}

/** Why a variable name is refused (before the console's own names are looked at), or null. */
export function variableNameProblem(name: string): string | null {
  if (name === '') return 'a variable needs a name';
  if (name.length > 200) return 'a variable name is at most 200 characters';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `“${name}” is not a variable name (letters, digits and _, not starting with a digit)`;
  return null;
}

/** Why a variable's value is refused, or null. */
export function variableValueProblem(value: string): string | null {
  if (value.length > maxVariableValueLength) return `a value is at most ${maxVariableValueLength} characters`;
  if (value.includes('\0')) return 'a value cannot hold a NUL character';
  return null;
}
