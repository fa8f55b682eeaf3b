// An ESLint rule that reports every import taking part in a cycle of the repository's own modules,
// `import type` and `export ... from` included (eslint.config.js turns it on for the whole repository).
//
// Why not import-x/no-cycle: the installed eslint-plugin-import-x (4.x) always skips type-only imports,
// with no option to count them, and a cycle through types is still a cycle to a reader: neither file
// can be understood, moved or given to another layer without the other. This rule reads each module's
// specifiers with TypeScript's pre-processor (comments and strings are not imports), follows only
// relative specifiers (a package never imports our files back), and keeps each file's imports until
// the file changes, so the whole repository is read about once per lint.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** What a relative specifier may name, in the order the bundler and tsc try them. */
const extensions = ['.ts', '.tsx', '.mts', '.d.mts', '.mjs', '.js'];

/**
 * The file a relative specifier names, or null (a package, or a file that is not there).
 * @param {string} fromFile
 * @param {string} specifier
 * @returns {string | null}
 */
export function resolveRelative(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier.replace(/\?.*$/, ''));
  const candidates = [base, ...extensions.map((extension) => base + extension), ...extensions.map((extension) => path.join(base, `index${extension}`))];
  if (base.endsWith('.js')) candidates.push(base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'));
  return candidates.find((candidate) => isFile(candidate)) ?? null;
}

/** @param {string} candidate */
function isFile(candidate) {
  try {
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/**
 * Every import of a module's text: its specifier, where the specifier is, and the file it names.
 * @param {string} text
 * @param {string} file
 * @returns {{ specifier: string, start: number, end: number, target: string | null }[]}
 */
export function importsOf(text, file) {
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => ({
    specifier: imported.fileName,
    start: imported.pos,
    end: imported.end,
    target: resolveRelative(file, imported.fileName),
  }));
}

/** How long a file's imports are trusted before its modification time is asked again. */
const recheckAfterMs = 2000;
/** @type {Map<string, { mtimeMs: number, size: number, checkedAt: number, targets: string[] }>} */
const importsByFile = new Map();

/**
 * The files a file on disk imports (of ours), from the cache while the file is unchanged.
 * @param {string} file
 * @returns {string[]}
 */
function targetsOnDisk(file) {
  const now = Date.now();
  const known = importsByFile.get(file);
  if (known && now - known.checkedAt < recheckAfterMs) return known.targets;
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    importsByFile.delete(file);
    return [];
  }
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) {
    known.checkedAt = now;
    return known.targets;
  }
  const targets = uniqueTargets(importsOf(fs.readFileSync(file, 'utf8'), file));
  importsByFile.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, checkedAt: now, targets });
  return targets;
}

/** @param {{ target: string | null }[]} imports */
function uniqueTargets(imports) {
  return [...new Set(imports.flatMap((imported) => (imported.target ? [imported.target] : [])))];
}

/**
 * For each file `file` imports that leads back to it, the shortest way back: [target, ..., file].
 * `ownTargets` are the file's imports as linted (its text may not be what is on disk yet).
 * @param {string} file
 * @param {string[]} ownTargets
 * @returns {Map<string, string[]>}
 */
export function cyclesThrough(file, ownTargets) {
  /** @param {string} node */
  const targetsOf = (node) => (node === file ? ownTargets : targetsOnDisk(node));
  // Every module reachable from the file, with who imports it (within that set).
  /** @type {Map<string, string[]>} */
  const importers = new Map([[file, []]]);
  const pending = [file];
  while (pending.length > 0) {
    const node = /** @type {string} */ (pending.pop());
    for (const target of targetsOf(node)) {
      if (!importers.has(target)) {
        importers.set(target, []);
        pending.push(target);
      }
      importers.get(target)?.push(node);
    }
  }
  // Walking back from the file along "is imported by" finds the modules that lead back to it, each with
  // its next step on a shortest way there.
  /** @type {Map<string, string>} */
  const nextStep = new Map();
  const queue = [file];
  for (let index = 0; index < queue.length; index += 1) {
    const node = /** @type {string} */ (queue[index]);
    for (const importer of importers.get(node) ?? []) {
      if (importer === file || nextStep.has(importer)) continue;
      nextStep.set(importer, node);
      queue.push(importer);
    }
  }
  /** @type {Map<string, string[]>} */
  const cycles = new Map();
  for (const target of ownTargets) {
    if (target === file) continue;
    if (!nextStep.has(target)) continue;
    const way = [target];
    for (let node = target; node !== file; ) {
      node = /** @type {string} */ (nextStep.get(node));
      way.push(node);
    }
    cycles.set(target, way);
  }
  return cycles;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid an import (type-only ones included) whose module imports this one back, directly or not.' },
    schema: [],
    messages: {
      cycle:
        'Import cycle: {{way}}. Modules in a cycle cannot be read, tested or moved one at a time: move what both need into a lower module (a type into a leaf file), or pass it in.',
    },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file)) return {};
    return {
      Program() {
        const imports = importsOf(context.sourceCode.text, file);
        const cycles = cyclesThrough(file, uniqueTargets(imports));
        if (cycles.size === 0) return;
        const root = context.cwd;
        const reported = new Set();
        for (const imported of imports) {
          const way = imported.target ? cycles.get(imported.target) : undefined;
          if (!way || reported.has(imported.target)) continue;
          reported.add(imported.target);
          context.report({
            loc: { start: context.sourceCode.getLocFromIndex(imported.start), end: context.sourceCode.getLocFromIndex(imported.end) },
            messageId: 'cycle',
            data: { way: [file, ...way].map((step) => path.relative(root, step)).join(' → ') },
          });
        }
      },
    };
  },
};

/** The plugin eslint.config.js registers as `local`. */
export default { rules: { 'no-import-cycle': noImportCycle } };
