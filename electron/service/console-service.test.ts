import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConsoleLog, createMemoryLogger } from '../platform/log';
import { makeTempDir } from '../testing/temp-dir';
import { hostTokenFromEnv, parseHostArguments, startConsoleService, StartupError, UsageError } from './console-service';
import { main } from './service-main';

const cleanups: Array<() => unknown> = [];

/** Ledgers a console must refuse, as they are found on disk: what makes one, and how the refusal begins. */
const refusedLedgers: Array<[string, (file: string) => void, string]> = [
  [
    'damaged',
    (file) => {
      // A console's ledger (WAL mode) whose second page went bad.
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      for (let n = 0; n < 20; n += 1) db.exec(`CREATE TABLE t${n} (x)`);
      db.close();
      const bytes = readFileSync(file);
      bytes.fill(0xa5, 4096, 8192);
      writeFileSync(file, bytes);
    },
    'The ledger .* is damaged and cannot be read',
  ],
  [
    'newer',
    (file) => {
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE from_the_future (x)');
      db.pragma('user_version = 999');
      db.close();
    },
    'The ledger .*ledger\\.sqlite was written by a newer Operator Console \\(schema 999; this one knows up to \\d+\\)\\. Update the console',
  ],
];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('npm run serve arguments', () => {
  it('takes --port and --data-dir, and a free port by default', () => {
    expect(parseHostArguments([])).toEqual({ port: 0, dataDir: undefined });
    expect(parseHostArguments(['--port', '8123', '--data-dir', '/tmp/oc'])).toEqual({ port: 8123, dataDir: '/tmp/oc' });
    expect(parseHostArguments(['--port=0'])).toEqual({ port: 0, dataDir: undefined });
  });

  it('refuses what it does not understand, in one line', () => {
    for (const argv of [['--bogus'], ['--port', '70000'], ['--port', '-1'], ['--port', '12ab'], ['extra'], ['--data-dir', '']]) {
      expect(() => parseHostArguments(argv), argv.join(' ')).toThrow(UsageError);
    }
    expect(() => parseHostArguments(['--port', 'x'])).toThrow(/--port must be a number from 0 to 65535/);
  });
});

describe('startConsoleService', () => {
  it('serves the built renderer from the data dir it was given, and stops cleanly', async () => {
    const renderer = makeTempDir('oc-serve-renderer-');
    const data = makeTempDir('oc-serve-data-');
    cleanups.push(renderer.remove, data.remove);
    writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
    const host = await startConsoleService(['--data-dir', data.path], {
      log: createMemoryLogger(),
      env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer.path },
    });
    cleanups.push(() => host.stop());
    expect(host.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/);
    expect(host.core.dataDir).toBe(data.path);
    const page = await fetch(host.server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('built');
    await host.stop();
    await expect(fetch(host.server.url)).rejects.toThrow();
  });

  it('writes its log to <data dir>/logs/console.log, and answers where it is', async () => {
    const renderer = makeTempDir('oc-serve-renderer-');
    const data = makeTempDir('oc-serve-data-');
    cleanups.push(renderer.remove, data.remove);
    writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line) });
    cleanups.push(() => log.close());
    const host = await startConsoleService(['--data-dir', data.path], { log, env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer.path } });
    cleanups.push(() => host.stop());
    const logFile = path.join(data.path, 'logs', 'console.log');
    expect(log.file).toBe(logFile);
    const info = await host.core.dispatch('getLogInfo', undefined, { transport: 'browser' });
    expect(info).toEqual({ ok: true, value: { logDir: path.join(data.path, 'logs'), logFile } });
    await host.stop();
    await log.flush();
    const logged = readFileSync(logFile, 'utf8');
    const messages = logged.trim().split('\n').map((line) => (JSON.parse(line) as { message: string }).message);
    // Every record, those from before the file was opened too.
    expect(messages[0]).toBe('data directory lock taken');
    expect(messages).toContain('browser host listening');
    expect(messages).toContain('browser host closed');
    // The token the address carries is never written to the log.
    expect(logged).not.toContain(new URL(host.server.url).searchParams.get('token'));
    // The terminal is a person's: nothing went well enough to need saying there.
    expect(terminal).toEqual([]);
  });

  it('keeps the token OPERATOR_CONSOLE_HOST_TOKEN gives, so a restart leaves open pages working; refuses a weak one', async () => {
    const renderer = makeTempDir('oc-serve-renderer-');
    const data = makeTempDir('oc-serve-data-');
    cleanups.push(renderer.remove, data.remove);
    writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
    const token = 'kept-across-restarts_0123456789abcdef';
    const host = await startConsoleService(['--data-dir', data.path], {
      log: createMemoryLogger(),
      env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer.path, OPERATOR_CONSOLE_HOST_TOKEN: token },
    });
    cleanups.push(() => host.stop());
    expect(host.server.token).toBe(token);
    expect((await fetch(host.server.url)).status).toBe(200);
    expect(hostTokenFromEnv({})).toBeUndefined();
    for (const weak of ['short', 'has spaces in it but is long enough to pass', `${'x'.repeat(40)};`]) {
      expect(() => hostTokenFromEnv({ OPERATOR_CONSOLE_HOST_TOKEN: weak }), weak).toThrow(UsageError);
    }
  });

  it('refuses a damaged ledger with the one message that names it and the way back, and gives the data directory up', async () => {
    const renderer = makeTempDir('oc-serve-renderer-');
    const data = makeTempDir('oc-serve-data-');
    cleanups.push(renderer.remove, data.remove);
    writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
    const ledgerFile = path.join(data.path, 'ledger.sqlite');
    writeFileSync(ledgerFile, randomBytes(16 * 1024));
    const started = startConsoleService(['--data-dir', data.path], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer.path } });
    const error = await started.then(
      () => null,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(StartupError);
    // main prints "Operator Console: <message>": the message, not a stack, and not SQLite's words alone.
    expect(error!.message.startsWith(`The ledger ${ledgerFile} is damaged and cannot be read (SQLite: file is not a database).`)).toBe(true);
    expect(error!.message).toContain('There is no backup of it in');
    expect(error!.message).not.toContain('\n');
    expect(existsSync(path.join(data.path, 'console.lock'))).toBe(false);
  });

  for (const [kind, makeLedger, says] of refusedLedgers) {
    it(`refused for a ${kind} ledger, prints its one line, keeps it in the log, and leaves nothing beside the ledger`, async () => {
      const renderer = makeTempDir('oc-serve-renderer-');
      const data = makeTempDir('oc-serve-data-');
      cleanups.push(renderer.remove, data.remove);
      writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
      makeLedger(path.join(data.path, 'ledger.sqlite'));
      const before = readdirSync(data.path).sort();
      const terminal: string[] = [];
      const exitCode = process.exitCode;
      vi.stubEnv('OPERATOR_CONSOLE_RENDERER_DIR', renderer.path);
      cleanups.push(() => {
        vi.unstubAllEnvs();
        process.exitCode = exitCode;
      });

      // What the log file holds at the moment the launcher hears of the refusal: the refusal, already.
      const logFile = path.join(data.path, 'logs', 'console.log');
      const reported: Array<{ kind: string; loggedAtReport: string[] }> = [];
      await main(['--data-dir', data.path], createConsoleLog({ terminal: (line) => terminal.push(line) }), (report) => {
        const logged = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean) : [];
        reported.push({ kind: report.kind, loggedAtReport: logged.map((line) => (JSON.parse(line) as { message: string }).message) });
      });

      expect(process.exitCode).toBe(1);
      // One line for the person, the refusal itself: no record of the lock before it, no JSON.
      expect(terminal).toHaveLength(1);
      expect(terminal[0]).toMatch(new RegExp(`^Operator Console: ${says}`));
      // No -wal, no -shm, no lock: only the log folder, which keeps what happened.
      expect(readdirSync(data.path).sort()).toEqual([...before, 'logs'].sort());
      const records = readFileSync(path.join(data.path, 'logs', 'console.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { level: string; message: string });
      expect(records.map((record) => record.message)).toEqual(['data directory lock taken', terminal[0]]);
      expect(records[1]?.level).toBe('error');
      expect(reported).toEqual([{ kind: 'failed', loggedAtReport: ['data directory lock taken', terminal[0]] }]);
    });
  }

  it('says to build first when the renderer is missing', async () => {
    const empty = makeTempDir('oc-serve-empty-');
    cleanups.push(empty.remove);
    const started = startConsoleService([], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: empty.path } });
    await expect(started).rejects.toThrow(StartupError);
    await expect(started).rejects.toThrow(/npm run build/);
  });
});

describe('the service stopping by itself when idle', () => {
  it('stays while a page is open, and stops a while after the last one closes', async () => {
    const renderer = makeTempDir('oc-serve-renderer-');
    const data = makeTempDir('oc-serve-data-');
    cleanups.push(renderer.remove, data.remove);
    writeFileSync(path.join(renderer.path, 'index.html'), '<!doctype html><title>built</title>');
    const service = await startConsoleService(['--data-dir', data.path], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer.path }, idleExitMs: 200 });
    cleanups.push(() => service.stop());
    let stopped = false;
    void service.stopped.then(() => (stopped = true));

    const { default: WebSocket } = await import('ws');
    const page = new WebSocket(`ws://127.0.0.1:${service.server.port}/ws?token=${service.server.token}`, { origin: service.server.origin });
    await new Promise((resolve, reject) => page.once('open', resolve).once('error', reject));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(stopped).toBe(false);

    page.close();
    await vi.waitFor(() => expect(stopped).toBe(true), { timeout: 3_000 });
    expect(existsSync(path.join(data.path, 'console.lock'))).toBe(false);
  });
});
