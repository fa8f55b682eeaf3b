import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The better-sqlite3 addon built for Electron's ABI, made by scripts/prepare-native.mjs into
 * native/electron-abi<abi>/. The package's own build in node_modules is for Node (the tests and the
 * browser host use it), and Electron refuses an addon built for another ABI. Undefined when there is
 * no copy for this ABI, so the ledger falls back to the package's build (and says why it failed).
 */
export function electronSqliteBinding(appDir: string, abi: string = process.versions.modules): string | undefined {
  const file = nativeAddonPath(appDir, abi);
  return existsSync(file) ? file : undefined;
}

export function nativeAddonPath(appDir: string, abi: string): string {
  return path.join(appDir, 'native', `electron-abi${abi}`, 'better_sqlite3.node');
}

/**
 * What to tell the operator when the ledger cannot open because its native addon is missing or was
 * built for another runtime; undefined for any other failure.
 */
export function describeNativeModuleFailure(error: unknown, appDir: string, abi: string = process.versions.modules): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!/NODE_MODULE_VERSION|better_sqlite3\.node|Could not locate the bindings file|was compiled against a different Node\.js version/i.test(message)) {
    return undefined;
  }
  return (
    `The ledger's SQLite module is not built for this version of Electron (ABI ${abi}). ` +
    `Run \`node scripts/prepare-native.mjs\` in ${appDir} to build it into ${path.join('native', `electron-abi${abi}`)}, then start the console again.`
  );
}
