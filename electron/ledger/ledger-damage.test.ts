import { afterEach, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { callCore } from '../testing/core-call';
import { makeTempDir } from '../testing/temp-dir';
import { openLedger, type Ledger } from './ledger';
import { LedgerDamagedError } from './ledger-damage';

const temps: Array<{ remove(): void }> = [];
const cores: Core[] = [];
function tempDir() {
  const dir = makeTempDir('oc-ledger-damage-');
  temps.push(dir);
  return dir.path;
}
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  temps.splice(0).forEach((t) => t.remove());
});

/** Runs as the run service records them, each with some output, interleaved the way pages get allocated. */
function recordRuns(ledger: Ledger, count: number, outputBytes = 6000): string[] {
  const db = ledger.db;
  const now = 1_700_000_000_000;
  db.prepare("INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES ('prj_1', 'project', '/srv/project', 0, ?)").run(now);
  db.prepare(
    `INSERT INTO agents (id, name, provider_id, model, profile_id, capacity, home_mode, environment_id, created_at, updated_at)
     VALUES ('agt_1', 'agent', 'fixture', 'fixture-model', 'default', 1, 'preconfigured', 'env_local', ?, ?)`,
  ).run(now, now);
  db.prepare("INSERT INTO tasks (id, project_id, title, prompt, created_at, updated_at) VALUES ('tsk_1', 'prj_1', 'task', 'do it', ?, ?)").run(now, now);
  const ids: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    const runId = `run_${String(n).padStart(4, '0')}`;
    db.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at, started_at, ended_at) VALUES (?, 'tsk_1', 'agt_1', 'succeeded', ?, ?, ?)").run(
      runId,
      now + n,
      now + n,
      now + n + 1,
    );
    db.prepare("INSERT INTO attempts (id, run_id, number, status, started_at) VALUES (?, ?, 1, 'succeeded', ?)").run(`att_${n}`, runId, now + n);
    ledger.output.appendChunks([{ runId, attemptId: `att_${n}`, byteOffset: 0, bytes: new Uint8Array(randomBytes(outputBytes)), createdAt: now + n }]);
    ids.push(runId);
  }
  return ids;
}

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Pages that belong to a table (and its indexes), from SQLite's own page map. */
function pagesOf(ledger: Ledger, table: string): number[] {
  const names = ledger.db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = ?").pluck().all(table) as string[];
  return (ledger.db.prepare(`SELECT pageno FROM dbstat WHERE name IN (${names.map(() => '?').join(',')}) ORDER BY pageno`).pluck().all(...names) as number[]);
}

function overwritePages(file: string, pages: number[], pageSize: number): void {
  const fd = openSync(file, 'r+');
  try {
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}

function openingError(dataDir: string): LedgerDamagedError {
  try {
    openLedger(dataDir).close();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerDamagedError);
    return error as LedgerDamagedError;
  }
  throw new Error('the damaged ledger opened');
}

describe('a damaged ledger', () => {
  it('that is not a database at all is refused naming the file and what to do, and left as it was', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'ledger.sqlite');
    writeFileSync(file, randomBytes(64 * 1024));
    // What may be its last transactions: SQLite would delete it on closing a read-write connection.
    writeFileSync(`${file}-wal`, randomBytes(4096));
    const before = digest(file);
    const walBefore = digest(`${file}-wal`);
    const names = readdirSync(dataDir).sort();

    const error = openingError(dataDir);
    expect(error.code).toBe('ledger_damaged');
    expect(error.message).toContain(`The ledger ${file} is damaged`);
    expect(error.message).toContain('file is not a database');
    // No backup yet: it says so, and how to start afresh without losing the file.
    expect(error.newestBackup).toBeNull();
    expect(error.message).toContain(`no backup of it in ${path.join(dataDir, 'backups')}`);
    expect(error.message).toContain('move ledger.sqlite');
    expect(digest(file)).toBe(before);
    expect(digest(`${file}-wal`)).toBe(walBefore);
    // Nothing new beside it: no -shm made by the look at it.
    expect(readdirSync(dataDir).sort()).toEqual(names);
  });

  it('that was cut short mid-page is refused naming the file and its newest backup, with the restore command', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    recordRuns(ledger, 40);
    const backup = await ledger.backups.takeDaily(ledger.db, Date.parse('2026-12-02T08:00:00Z'));
    recordRuns2(ledger);
    const pageSize = ledger.db.pragma('page_size', { simple: true }) as number;
    ledger.close();
    const file = path.join(dataDir, 'ledger.sqlite');
    const size = statSync(file).size;
    truncateSync(file, size - Math.floor(pageSize * 2.5));
    const before = digest(file);

    const error = openingError(dataDir);
    expect(error.message).toContain(`The ledger ${file} is damaged`);
    expect(error.message).toContain('database disk image is malformed');
    expect(error.newestBackup?.file).toBe(backup.file);
    expect(error.message).toContain(`the daily backup of 2026-12-02 08:00 UTC (${backup.file})`);
    expect(error.message).toContain(`npm run ledger:restore -- ${backup.file}`);
    expect(digest(file)).toBe(before);
  });

  it('with a corrupt page in the middle is refused at open, before anything is written to it', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    recordRuns(ledger, 300, 3000);
    const backup = await ledger.backups.takeDaily(ledger.db, Date.parse('2026-12-02T08:00:00Z'));
    const pageSize = ledger.db.pragma('page_size', { simple: true }) as number;
    const pageCount = ledger.db.pragma('page_count', { simple: true }) as number;
    // The runs table's page nearest the middle of the file: output pages lie on both sides of it.
    const runPages = pagesOf(ledger, 'runs');
    const middle = runPages.reduce((best, page) => (Math.abs(page - pageCount / 2) < Math.abs(best - pageCount / 2) ? page : best));
    expect(middle).toBeGreaterThan(pageCount / 4);
    expect(middle).toBeLessThan((pageCount * 3) / 4);
    ledger.close();
    const file = path.join(dataDir, 'ledger.sqlite');
    overwritePages(file, [middle], pageSize);
    const before = digest(file);
    // A console's ledger closed cleanly: the file and the backups folder, nothing else.
    const listing = () => [...readdirSync(dataDir), ...readdirSync(path.join(dataDir, 'backups'))].sort();
    const names = listing();
    expect(names.filter((name) => name.startsWith('ledger.sqlite'))).toEqual(['ledger.sqlite']);

    const error = openingError(dataDir);
    expect(error.message).toContain(`The ledger ${file} is damaged`);
    expect(error.message).toContain('malformed');
    expect(error.message).toContain(backup.file);
    expect(digest(file)).toBe(before);
    // The refusal left no -wal or -shm (a WAL ledger read in place gets both).
    expect(listing()).toEqual(names);
  });

  it('whose output pages go bad is answered with ledger_damaged and the way back when they are read, not as internal', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    const [runId] = recordRuns(ledger, 20);
    const backup = await ledger.backups.takeDaily(ledger.db, Date.now() - 60_000);
    const pageSize = ledger.db.pragma('page_size', { simple: true }) as number;
    const outputPages = pagesOf(ledger, 'output_chunks');
    ledger.close();
    overwritePages(path.join(dataDir, 'ledger.sqlite'), outputPages, pageSize);

    // The start-up check leaves the output alone (it is the bulk of the file), so the console starts...
    const core = createCore({ dataDir, transport: 'browser', appVersion: 'test', log: createMemoryLogger() });
    cores.push(core);
    // ...and the first read of the output says what happened and what to do.
    const failure = await callCore(core, 'getRun', { runId: runId! }).then(
      () => null,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(failure?.code).toBe('ledger_damaged');
    expect(failure?.message).toContain(`The ledger ${path.join(dataDir, 'ledger.sqlite')} is damaged`);
    expect(failure?.message).toContain(backup.file);
  });
});

/** More runs after the backup, so that the backup is not the whole story. */
function recordRuns2(ledger: Ledger): void {
  const now = 1_800_000_000_000;
  for (let n = 1; n <= 10; n += 1) {
    ledger.db.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at) VALUES (?, 'tsk_1', 'agt_1', 'succeeded', ?)").run(`run_late_${n}`, now + n);
  }
}
