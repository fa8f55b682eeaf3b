import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The module a worker thread runs, by name (`output-writer-worker`, `search-reader-worker`), next to
 * the module that starts it (`here`, its import.meta.url). Built (dist/electron/<name>.js, its own
 * entry in vite.config.ts, next to main.js or one level up from a chunk), it is a plain file. From
 * source (vitest, Node 20 cannot run .ts) the .ts file is stripped of its types with Vite's transform
 * and run as a data: URL, which is why a worker imports only built-ins and sibling modules (each
 * stripped the same way and imported by its own data: URL, since a data: URL resolves no relative
 * path), and requires packages from a path the main thread names.
 */
export function workerModuleUrl(name: string, here: string): URL {
  if (here.endsWith('.ts')) {
    const source = fileURLToPath(new URL(`./${name}.ts`, here));
    return new URL(`data:text/javascript,${encodeURIComponent(stripTypes(source))}`);
  }
  const candidates = [new URL(`./${name}.js`, here), new URL(`../${name}.js`, here)];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

type TransformSync = (filename: string, source: string) => { code: string; errors: ReadonlyArray<{ message: string }> };

const stripped = new Map<string, string>();
function stripTypes(file: string): string {
  const known = stripped.get(file);
  if (known !== undefined) return known;
  // Only from source: Vite's own transformer (a dev dependency, so required by name, never bundled).
  const transformer = 'rolldown/utils';
  const { transformSync } = createRequire(import.meta.url)(transformer) as { transformSync: TransformSync };
  const result = transformSync(file, readFileSync(file, 'utf8'));
  if (result.errors.length > 0) throw new Error(`Cannot load ${file}: ${result.errors.map((error) => error.message).join('; ')}`);
  const code = result.code.replace(/(\bfrom\s*|\bimport\s*)(['"])(\.\.?\/[^'"]+)\2/g, (_match, keyword: string, quote: string, specifier: string) => {
    const sibling = fileURLToPath(new URL(`${specifier}.ts`, pathToFileURL(file)));
    return `${keyword}${quote}data:text/javascript,${encodeURIComponent(stripTypes(sibling))}${quote}`;
  });
  stripped.set(file, code);
  return code;
}
