#!/usr/bin/env node
/**
 * Installs the pinned agent CLIs of e2e/agents (package.json + package-lock.json) with `npm ci`, but
 * only when e2e/agents/node_modules is missing or the lockfile changed since the last install (a stamp
 * file in node_modules records the lockfile's digest). Progress goes to stderr.
 *
 *   node e2e/agents/install.mjs          install if needed (exit 0 when the CLIs are ready)
 *   node e2e/agents/install.mjs --force  reinstall
 *
 * Importable: `await ensureAgentClis()` does the same (the suite calls it before its first test).
 * Concurrent callers (vitest workers) serialize on a lock directory.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const agentsDir = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = path.join(agentsDir, 'node_modules');
const stampFile = path.join(nodeModules, '.e2e-agents-install.stamp');
const lockDir = path.join(agentsDir, '.install.lock');
/** The CLIs the suite needs, by their bin names. */
export const requiredBins = ['codex', 'claude', 'pi', 'gemini'];

/** @param {string} message */
function log(message) {
  process.stderr.write(`[e2e/agents install] ${message}\n`);
}

/** Digest of what `npm ci` installs from: the lockfile, the manifest, and the platform. */
export function lockDigest() {
  const hash = createHash('sha256');
  hash.update(readFileSync(path.join(agentsDir, 'package-lock.json')));
  hash.update(readFileSync(path.join(agentsDir, 'package.json')));
  hash.update(`${process.platform}-${process.arch}`);
  return hash.digest('hex');
}

export function isInstalled() {
  if (!existsSync(stampFile)) return false;
  if (readFileSync(stampFile, 'utf8').trim() !== lockDigest()) return false;
  return requiredBins.every((bin) => existsSync(path.join(nodeModules, '.bin', bin)));
}

/** @returns {Promise<void>} */
function runNpmCi() {
  // A parent `npm test` exports npm_config_* / npm_package_* variables; they must not steer this
  // install towards the root project.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=warn'], {
      cwd: agentsDir,
      env,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) {
        log(`npm ci finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        resolve();
      } else reject(new Error(`npm ci in ${agentsDir} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

/**
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withLock(fn, { timeoutMs = 15 * 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
      if (lockIsStale()) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the install lock ${lockDir}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockIsStale() {
  try {
    const pid = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - statSync(lockDir).mtimeMs > 60_000;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const { code } = /** @type {NodeJS.ErrnoException} */ (error);
    if (code === 'EPERM') return false;
    // No pid file yet (just created) counts as live for a minute (and a lock already gone as live too,
    // so the next mkdir decides); a dead pid is stale.
    if (code === 'ENOENT') return Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 60_000;
    return true;
  }
}

/** Installs the CLIs if needed. Resolves with true when it ran `npm ci`, false when nothing was to do. */
export async function ensureAgentClis({ force = false } = {}) {
  if (!force && isInstalled()) return false;
  return withLock(async () => {
    if (!force && isInstalled()) return false;
    const why = !existsSync(nodeModules) ? 'node_modules is missing' : force ? '--force' : 'the lockfile changed (or the last install did not finish)';
    log(`installing the pinned agent CLIs (${why}) ...`);
    rmSync(stampFile, { force: true });
    await runNpmCi();
    const missing = requiredBins.filter((bin) => !existsSync(path.join(nodeModules, '.bin', bin)));
    if (missing.length > 0) throw new Error(`npm ci finished but these CLIs are missing: ${missing.join(', ')}`);
    writeFileSync(stampFile, `${lockDigest()}\n`);
    log('agent CLIs ready');
    return true;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureAgentClis({ force: process.argv.includes('--force') }).then(
    (installed) => {
      if (!installed) log('agent CLIs already installed (lockfile unchanged)');
    },
    (/** @type {Error} */ error) => {
      log(error.message);
      process.exitCode = 1;
    },
  );
}
