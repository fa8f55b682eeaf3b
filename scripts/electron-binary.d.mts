// Types for scripts/electron-binary.mjs, so its TypeScript test type-checks.

export interface ElectronLookup {
  appDir: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export type ElectronBinaryResult = { ok: true; path: string } | { ok: false; reason: string };

export function platformExecutable(platform?: NodeJS.Platform): string;
export function installedElectronBinary(lookup: ElectronLookup): string | undefined;
export function shortReason(stderr: string): string;
export function findElectronBinary(lookup: ElectronLookup & { timeoutMs?: number }): Promise<ElectronBinaryResult>;
export function electronPackageInfo(appDir: string): { version: string; abi: string } | undefined;
export function electronSqlitePath(appDir: string, abi: string): string;
