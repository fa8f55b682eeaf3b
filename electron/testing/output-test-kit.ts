import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLedger, type Ledger } from '../ledger/ledger';
import type { LedgerDb } from '../ledger/database-handle';
import { makeTempDir } from './temp-dir';
import { startPtySession, type PtySession } from '../pty/pty-session';

/** Test-only helpers for the PTY and live-output tests and benchmarks. */

export const fixtureAgentPath = fileURLToPath(new URL('../../e2e/fixtures/fixture-agent.mjs', import.meta.url));

/** A minimal environment, as the confined environment would give: the fixture's `#!/usr/bin/env node` needs node on PATH. */
export function fixtureEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...extra,
  };
}

export function startFixtureAgent(args: string[], options: { cwd?: string; cols?: number; rows?: number; env?: Record<string, string> } = {}): PtySession {
  return startPtySession({
    executable: fixtureAgentPath,
    args,
    cwd: options.cwd ?? process.cwd(),
    env: fixtureEnv(options.env),
    cols: options.cols ?? 80,
    rows: options.rows ?? 24,
  });
}

export interface TestRunLedger {
  ledger: Ledger;
  dir: string;
  /** Inserts a project, task, agent, run and first attempt (the run service does this for real). */
  createRun(): { runId: string; attemptId: string };
  close(): void;
}

/**
 * Inserts a project, task, agent, run (status `running`) and its first attempt, numbered `n`, into a
 * ledger database (the run service does this for real); for a test's ledger, or one made the way an
 * earlier console would have.
 */
export function recordTestRun(db: LedgerDb, n: string, projectDir: string): { runId: string; attemptId: string } {
  const now = Date.now();
  db.prepare('INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES (?, ?, ?, 0, ?)').run(`prj_${n}`, `project ${n}`, projectDir, now);
  db.prepare(
    `INSERT INTO agents (id, name, provider_id, model, profile_id, capacity, home_mode, environment_id, created_at, updated_at)
     VALUES (?, ?, 'fixture', 'fixture-model', 'default', 1, 'preconfigured', 'env_local', ?, ?)`,
  ).run(`agt_${n}`, `agent ${n}`, now, now);
  db.prepare('INSERT INTO tasks (id, project_id, title, prompt, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    `tsk_${n}`,
    `prj_${n}`,
    `task ${n}`,
    'do the thing',
    now,
    now,
  );
  db.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at, started_at) VALUES (?, ?, ?, 'running', ?, ?)").run(`run_${n}`, `tsk_${n}`, `agt_${n}`, now, now);
  db.prepare("INSERT INTO attempts (id, run_id, number, status, started_at) VALUES (?, ?, 1, 'running', ?)").run(`att_${n}`, `run_${n}`, now);
  return { runId: `run_${n}`, attemptId: `att_${n}` };
}

/** A real ledger file in a fresh temp directory. */
export function openTestRunLedger(): TestRunLedger {
  const temp = makeTempDir('oc-output-');
  const ledger = openLedger(temp.path);
  let count = 0;
  return {
    ledger,
    dir: temp.path,
    createRun() {
      count += 1;
      return recordTestRun(ledger.db, `${count}`, path.join(temp.path, `project-${count}`));
    },
    close() {
      ledger.close();
      temp.remove();
    },
  };
}

/** Everything a session emits, kept in order (what the ledger must equal). */
export function recordSessionOutput(session: PtySession): { bytes(): Buffer; text(): string } {
  const parts: Buffer[] = [];
  session.onData((bytes) => parts.push(bytes));
  return { bytes: () => Buffer.concat(parts), text: () => Buffer.concat(parts).toString('utf8') };
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The flood's text as the fixture wrote it, checked against the hash it printed. */
export function floodReport(terminalText: string): { body: string; bytes: number; lines: number; sha256: string } | undefined {
  const text = terminalText.replaceAll('\r\n', '\n'); // undo the terminal's onlcr
  const begin = text.indexOf('flood-begin\n');
  const endMatch = /flood-end bytes=(\d+) lines=(\d+) sha256=([0-9a-f]{64})\n/.exec(text);
  if (begin < 0 || !endMatch) return undefined;
  return {
    body: text.slice(begin + 'flood-begin\n'.length, endMatch.index),
    bytes: Number(endMatch[1]),
    lines: Number(endMatch[2]),
    sha256: endMatch[3]!,
  };
}
