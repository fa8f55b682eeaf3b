// `npm run soak -- [--runs N] [--concurrency N] [--lines N] [--warmup N] [--git-rounds N]`: the soak
// (bench/soak.ts) with these settings, then the many-runs-on-one-project stress test at a soak's size
// (16 task roots at once, --git-rounds rounds; 0 skips it). Not part of `npm test`. Needs no build.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');

/** @type {Record<string, string | undefined>} */
let values;
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      lines: { type: 'string' },
      warmup: { type: 'string' },
      'git-rounds': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}. Usage: npm run soak -- [--runs 300] [--concurrency 8] [--lines 200] [--warmup 16] [--git-rounds 32]\n`);
  process.exit(2);
}
for (const [name, value] of Object.entries(values)) {
  if (value !== undefined && !/^\d+$/.test(value)) {
    process.stderr.write(`soak: --${name} must be a whole number, not ${JSON.stringify(value)}.\n`);
    process.exit(2);
  }
}

/** @param {string[]} args @param {Record<string, string>} env */
function vitestRun(args, env) {
  const result = spawnSync(process.execPath, [vitest, 'run', ...args], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/** @type {Record<string, string>} */
const soakEnv = {};
/** @type {Array<[string, string]>} */
const soakSettings = [['runs', 'SOAK_RUNS'], ['concurrency', 'SOAK_CONCURRENCY'], ['lines', 'SOAK_LINES'], ['warmup', 'SOAK_WARMUP']];
for (const [flag, name] of soakSettings) {
  const value = values[flag];
  if (value !== undefined) soakEnv[name] = value;
}
let status = vitestRun(['-c', 'bench/soak.vitest.config.ts'], soakEnv);

const gitRounds = values['git-rounds'] ?? '32';
if (gitRounds !== '0') {
  const gitStatus = vitestRun(['electron/git/project-repository-lock.test.ts', '-t', 'many runs on one project'], { OC_MANY_RUNS_ROUNDS: gitRounds });
  status ||= gitStatus;
}
process.exit(status);
