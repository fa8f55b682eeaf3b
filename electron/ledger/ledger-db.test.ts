import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { seedRunParents } from '../testing/ledger-seed';
import { makeTempDir } from '../testing/temp-dir';
import { LedgerLockedError, LedgerVersionError, openLedgerDb, schemaVersion } from './ledger-db';
import { openLedger } from './ledger';
import { migrations } from './migrations';

const temps: Array<{ remove(): void }> = [];
function tempDir() {
  const dir = makeTempDir('oc-ledger-');
  temps.push(dir);
  return dir.path;
}
afterEach(() => temps.splice(0).forEach((t) => t.remove()));

/** Every name in a folder with a digest of what it holds: what a refusal must leave unchanged. */
function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((name) => [name, createHash('sha256').update(readFileSync(path.join(dir, name))).digest('hex')]));
}

describe('the ledger file', () => {
  it('is created with WAL, NORMAL sync, foreign keys, a busy timeout and the latest schema', () => {
    const ledger = openLedger(tempDir());
    expect(ledger.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(ledger.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(ledger.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(ledger.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(schemaVersion(ledger.db)).toBe(migrations.at(-1)!.version);
    expect(path.basename(ledger.file)).toBe('ledger.sqlite');
    ledger.close();
  });

  it('has every table the run, confinement and connection issues build on', () => {
    const ledger = openLedger(tempDir());
    const tables = (ledger.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
    for (const table of [
      'projects',
      'agents',
      'environments',
      'ai_connections',
      'tasks',
      'runs',
      'attempts',
      'run_events',
      'output_chunks',
      'locators',
      'notices',
    ]) {
      expect(tables).toContain(table);
    }
    expect(ledger.environments.list().map((env) => [env.kind, env.builtIn])).toEqual([
      ['local', true],
      ['sandboxed', true],
    ]);
    ledger.close();
  });

  it('upgrades a database made by the first migration, keeping its data', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const first = openLedgerDb(file, { migrations: migrations.slice(0, 1) });
    expect(schemaVersion(first)).toBe(1);
    first.prepare("INSERT INTO projects VALUES ('prj_old', 'old', '/srv/old', 1, 1000)").run();
    first
      .prepare(
        `INSERT INTO notices (id, kind, severity, title, message, status, created_at)
         VALUES ('ntc_old', 'stranded_run', 'warning', 'Run stranded', 'Resume it', 'open', 2000)`,
      )
      .run();
    first.close();

    const ledger = openLedger(dir);
    expect(schemaVersion(ledger.db)).toBe(migrations.at(-1)!.version);
    expect(ledger.projects.list().map((p) => p.path)).toEqual(['/srv/old']);
    expect(ledger.notices.list('open').map((n) => n.id)).toEqual(['ntc_old']);
    // The upgraded notice keeps its own dedupe key, so a new notice for another cause does not merge into it.
    const raised = ledger.notices.raise({
      id: 'ntc_new',
      kind: 'stranded_run',
      severity: 'warning',
      title: 'Run stranded',
      message: 'Resume it',
      dedupeKey: 'stranded:run_x',
      createdAt: 3000,
    });
    expect(raised.id).toBe('ntc_new');
    expect(ledger.notices.countOpen()).toBe(2);
    // Environments made by the first migration are the built-ins, with no allowed hosts; old notices are about none.
    expect(ledger.environments.list().map((env) => [env.id, env.builtIn, env.allowedHosts])).toEqual([
      ['env_local', true, []],
      ['env_sandboxed', true, []],
    ]);
    expect(ledger.notices.get('ntc_old')).toMatchObject({ environmentId: null });
    ledger.close();
  });

  it('runs each migration in a transaction: a failing one leaves the file at the previous version', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const broken = [...migrations.slice(0, 1), { version: 2, name: 'broken', sql: 'CREATE TABLE half (x); SELECT * FROM nowhere;' }];
    expect(() => openLedgerDb(file, { migrations: broken })).toThrow();
    const db = new Database(file);
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a ledger written by a newer console instead of guessing, and leaves its folder as it was', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    // As a console writes it: WAL mode, closed cleanly (no -wal, no -shm beside it).
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE from_the_future (x)');
    db.pragma('user_version = 999');
    db.close();
    const before = folderState(dir);
    expect(() => openLedgerDb(file)).toThrow(LedgerVersionError);
    expect(folderState(dir)).toEqual(before);
  });

  it('refuses a ledger another program holds locked, saying so, and leaves its folder as it was', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    openLedgerDb(file).close();
    // An sqlite3 shell (say) in an exclusive transaction.
    const other = new Database(file);
    other.pragma('locking_mode = EXCLUSIVE');
    other.exec('BEGIN EXCLUSIVE; CREATE TABLE held (x);');
    try {
      const names = readdirSync(dir).sort();
      // (After SQLite's busy timeout of 5 s: the other program may let go meanwhile.)
      let refusal: unknown;
      try {
        openLedgerDb(file).close();
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(LedgerLockedError);
      expect((refusal as Error).message).toContain(`The ledger ${file} is locked by another program`);
      expect(readdirSync(dir).sort()).toEqual(names);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 20_000);

  it('refuses a newer ledger a console left mid-write (its -wal holds the version) without touching the -wal or -shm', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (x)');
    // Only in the -wal: a console killed before its checkpoint.
    writer.pragma('wal_autocheckpoint = 0');
    writer.pragma('user_version = 999');
    // The -shm is an index every reader may update; the file and its last transactions must stay as they are.
    const kept = () => {
      const state = folderState(dir);
      return { names: Object.keys(state), ledger: state['ledger.sqlite'], wal: state['ledger.sqlite-wal'] };
    };
    const held = kept();
    expect(held.names).toEqual(['ledger.sqlite', 'ledger.sqlite-shm', 'ledger.sqlite-wal']);
    try {
      // Read as a second process would (the writer stays open, as a killed console's files stay).
      expect(() => openLedgerDb(file)).toThrow(LedgerVersionError);
      expect(kept()).toEqual(held);
    } finally {
      writer.close();
    }
  });
});

describe('notices', () => {
  it('keep one open notice per cause', () => {
    const ledger = openLedger(tempDir());
    const base = { kind: 'spawn_failed', severity: 'error' as const, title: 'Codex CLI not found', message: 'Install it', dedupeKey: 'spawn:codex' };
    const first = ledger.notices.raise({ ...base, id: 'ntc_1', createdAt: 1 });
    const again = ledger.notices.raise({ ...base, id: 'ntc_2', createdAt: 2 });
    expect(again.id).toBe(first.id);
    expect(ledger.notices.countOpen()).toBe(1);
    const resolved = ledger.notices.resolve(first.id, 3, 'A later run of Codex found its CLI and started.');
    expect(resolved).toMatchObject({ status: 'resolved', resolution: 'A later run of Codex found its CLI and started.' });
    const later = ledger.notices.raise({ ...base, id: 'ntc_3', createdAt: 4 });
    expect(later.id).toBe('ntc_3');
    ledger.close();
  });
});

describe('migration 5 (AI connections and notice runs)', () => {
  it('keeps the run an existing notice was raised for, so its run detail still shows it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const old = openLedgerDb(file, { migrations: migrations.slice(0, 4) });
    seedRunParents(old);
    old.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at) VALUES ('run_1', 'tsk_1', 'agt_1', 'refused', 1)").run();
    old
      .prepare(
        `INSERT INTO notices (id, kind, severity, title, message, run_id, agent_id, status, created_at, dedupe_key)
         VALUES ('ntc_1', 'ai_connection_required', 'error', 'AI connection required', 'Choose one', 'run_1', 'agt_1', 'resolved', 2, 'k')`,
      )
      .run();
    old.close();

    const ledger = openLedger(dir);
    expect(ledger.notices.list('all', 'run_1')).toMatchObject([{ id: 'ntc_1', runIds: ['run_1'], canRunAgain: true, rerunRunIds: [] }]);
    expect(ledger.agents.verificationJson('agt_1')).toBeNull();
    expect(ledger.notices.claimRerun('ntc_1', 3)).toBe(true);
    expect(ledger.notices.claimRerun('ntc_1', 4)).toBe(false);
    expect(ledger.notices.get('ntc_1')).toMatchObject({ canRunAgain: false });
    ledger.close();
  });
});

describe('migration 6 (notice resolution)', () => {
  it('keeps notices resolved before it, which say nothing of what fixed them', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const old = openLedgerDb(file, { migrations: migrations.slice(0, 5) });
    old
      .prepare(
        `INSERT INTO notices (id, kind, severity, title, message, status, created_at, resolved_at, dedupe_key)
         VALUES ('ntc_1', 'spawn_failed', 'error', 'CLI not found', 'Install it', 'resolved', 2, 3, 'k')`,
      )
      .run();
    old.close();

    const ledger = openLedger(dir);
    expect(ledger.notices.get('ntc_1')).toMatchObject({ status: 'resolved', resolution: null, resolvedAt: new Date(3).toISOString() });
    ledger.close();
  });
});

describe('migration 8 (project setup)', () => {
  it('rebuilds the runs table to allow setting_up, keeping every run and what hangs off it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const old = openLedgerDb(file, { migrations: migrations.filter((migration) => migration.version < 8) });
    seedRunParents(old);
    old.prepare("INSERT INTO runs (id, task_id, agent_id, status, cwd, archived_at, created_at) VALUES ('run_1', 'tsk_1', 'agt_1', 'succeeded', '/v', 5, 1)").run();
    old.prepare("INSERT INTO attempts (id, run_id, number, status) VALUES ('att_1', 'run_1', 1, 'succeeded')").run();
    old.prepare("INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES ('run_1', 0, 'att_1', x'6869', 1)").run();
    old.prepare("INSERT INTO notices (id, kind, severity, title, message, run_id, status, created_at, dedupe_key) VALUES ('ntc_1', 'k', 'error', 't', 'm', 'run_1', 'open', 1, 'k')").run();
    // A notice about an environment (migration 7's columns), and one of the run's egress decisions.
    old.prepare(
      `INSERT INTO notices (id, kind, severity, title, message, run_id, environment_id, subject_json, status, created_at, dedupe_key)
       VALUES ('ntc_2', 'network_blocked', 'warning', 't', 'm', 'run_1', 'env_sandboxed', '{"host":"example.org","port":443}', 'open', 1, 'n')`,
    ).run();
    old.prepare("INSERT INTO run_events (run_id, attempt_id, kind, payload_json, created_at) VALUES ('run_1', 'att_1', 'egress', '{}', 1)").run();
    expect(() => old.prepare("UPDATE runs SET status = 'setting_up' WHERE id = 'run_1'").run()).toThrow(/CHECK/);
    const schemaOf = (db: typeof old) =>
      (db.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL').all() as Array<{ type: string; name: string; sql: string }>).map(
        (entry) => `${entry.type} ${entry.name}: ${entry.sql}`,
      );
    const before = schemaOf(old);
    old.close();

    const ledger = openLedger(dir);
    expect(ledger.runs.row('run_1')).toMatchObject({ status: 'succeeded', cwd: '/v', archived_at: 5, setup_json: null });
    expect(ledger.runs.attempts('run_1').map((attempt) => attempt.id)).toEqual(['att_1']);
    expect(ledger.output.totalBytes('run_1')).toBe(2);
    expect(ledger.notices.get('ntc_1')?.runId).toBe('run_1');
    expect(ledger.notices.get('ntc_2')).toMatchObject({ runId: 'run_1', environmentId: 'env_sandboxed' });
    expect(ledger.db.prepare("SELECT count(*) AS n FROM run_events WHERE run_id = 'run_1' AND kind = 'egress'").get()).toEqual({ n: 1 });
    expect(ledger.db.pragma('foreign_keys', { simple: true })).toBe(1);
    // Nothing earlier migrations made is lost or changed but the two tables this one alters (and
    // attempts, which migration 12 gives a cause, and environments, which migration 14 gives a host):
    // every index (migration 7's on notices and run_events too), trigger and other table is as it was.
    const after = new Set(schemaOf(ledger.db));
    expect(before.filter((entry) => !after.has(entry) && !/^table (runs|projects|attempts|environments):/.test(entry))).toEqual([]);
    // The new status is allowed, an unknown one still is not, and the indexes came back.
    expect(ledger.runs.setStatus('run_1', 'succeeded', 'setting_up')).toBe(true);
    expect(() => ledger.db.prepare("UPDATE runs SET status = 'bogus' WHERE id = 'run_1'").run()).toThrow(/CHECK/);
    const indexes = (ledger.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'").all() as Array<{ name: string }>).map((row) => row.name);
    expect(indexes).toEqual(expect.arrayContaining(['runs_by_created', 'runs_by_task', 'runs_by_status']));
    // Children still point at the rebuilt table: deleting the run takes its attempts and output with it.
    expect(ledger.runs.delete('run_1')).toBe(true);
    expect(ledger.runs.attempts('run_1')).toEqual([]);
    expect(ledger.output.totalBytes('run_1')).toBe(0);
    ledger.close();
  });
});

describe('migration 12 (why each attempt started)', () => {
  it('gives existing attempts the cause their history records (first, retry, the operator’s resume or follow-up), and none it does not', () => {
    const dir = tempDir();
    const file = path.join(dir, 'ledger.sqlite');
    const old = openLedgerDb(file, { migrations: migrations.filter((migration) => migration.version < 12) });
    seedRunParents(old);
    const run = old.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at) VALUES (?, 'tsk_1', 'agt_1', 'succeeded', 1)");
    const attempt = old.prepare('INSERT INTO attempts (id, run_id, number, status, retry_at, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const note = old.prepare('INSERT INTO run_events (run_id, attempt_id, kind, payload_json, created_at) VALUES (?, NULL, ?, ?, ?)');
    // Succeeded, then the operator's Resume: the old separator read "attempt 2 · after success".
    run.run('run_resumed');
    attempt.run('att_r1', 'run_resumed', 1, 'succeeded', null, 100, 200);
    note.run('run_resumed', 'resumed', '{"sessionId":"s","prompt":null}', 5000);
    attempt.run('att_r2', 'run_resumed', 2, 'succeeded', null, 5001, 6000);
    // A retry the policy scheduled, then stranded, then a follow-up turn with a prompt.
    run.run('run_retried');
    attempt.run('att_t1', 'run_retried', 1, 'failed', 300, 100, 200);
    attempt.run('att_t2', 'run_retried', 2, 'stranded', null, 300, 400);
    note.run('run_retried', 'resumed', '{"sessionId":"s","prompt":"Resolve the conflicts"}', 900);
    attempt.run('att_t3', 'run_retried', 3, 'succeeded', null, 901, 1000);
    // A resume whose configuration changed (a fresh session).
    run.run('run_fresh');
    attempt.run('att_f1', 'run_fresh', 1, 'stranded', null, 100, 200);
    note.run('run_fresh', 'fresh_session', '{"reason":"model changed"}', 700);
    attempt.run('att_f2', 'run_fresh', 2, 'succeeded', null, 701, 800);
    // A second attempt the history says nothing about: left unknown, not guessed.
    run.run('run_unknown');
    attempt.run('att_u1', 'run_unknown', 1, 'succeeded', null, 100, 200);
    attempt.run('att_u2', 'run_unknown', 2, 'succeeded', null, 300, 400);
    old.close();

    const ledger = openLedger(dir);
    const causes = (runId: string) => ledger.runs.attempts(runId).map((each) => each.cause);
    expect(causes('run_resumed')).toEqual(['first', 'resume']);
    expect(causes('run_retried')).toEqual(['first', 'retry', 'follow_up']);
    expect(causes('run_fresh')).toEqual(['first', 'resume']);
    expect(causes('run_unknown')).toEqual(['first', null]);
    // New attempts are recorded with theirs; the column takes no other value.
    ledger.runs.insertAttempt({ id: 'att_u3', runId: 'run_unknown', number: 3, cause: 'resume', startedAt: 500 });
    expect(causes('run_unknown')).toEqual(['first', null, 'resume']);
    expect(() => ledger.db.prepare("UPDATE attempts SET cause = 'guess' WHERE id = 'att_u3'").run()).toThrow(/CHECK/);
    ledger.close();
  });
});
