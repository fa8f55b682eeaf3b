import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crashLine, installCrashHandlers, type Crash } from './crash-handlers';
import { isDiskFullError } from './disk-space';
import { createConsoleLog } from './log';
import { makeTempDir } from '../testing/temp-dir';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function logIn(dataDir: string) {
  const log = createConsoleLog({ terminal: () => undefined });
  log.writeToFile(dataDir);
  cleanups.push(() => log.close());
  return log;
}

describe('the crash handlers', () => {
  it('log an uncaught exception with its stack to the file, flush, then hand the crash on once', async () => {
    const data = makeTempDir('oc-crash-');
    cleanups.push(data.remove);
    const log = logIn(data.path);
    const target = new EventEmitter();
    const crashes: Crash[] = [];
    const uninstall = installCrashHandlers({ log, target: target as unknown as NodeJS.Process, onCrash: (crash) => crashes.push(crash) });
    cleanups.push(uninstall);

    target.emit('uncaughtException', new Error('the ledger went away'));
    target.emit('unhandledRejection', new Error('and then this'));
    await expect.poll(() => crashes.length).toBe(1);

    expect(crashes[0]).toEqual({ kind: 'uncaught_exception', message: 'the ledger went away', logFile: path.join(data.path, 'logs', 'console.log') });
    // Flushed before the crash was handed on: the stack is in the file already.
    const lines = readFileSync(log.file!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ level: 'error', message: 'uncaught exception' });
    expect(lines[0]?.error).toMatch(/Error: the ledger went away\n\s+at /);
    // A second failure while the first is handled is logged, not handled again.
    await expect.poll(() => readFileSync(log.file!, 'utf8')).toContain('and then this');
    expect(crashes).toHaveLength(1);

    uninstall();
    expect(target.listenerCount('uncaughtException') + target.listenerCount('unhandledRejection')).toBe(0);
  });

  it('log an unhandled rejection of something that is not an Error', async () => {
    const data = makeTempDir('oc-crash-');
    cleanups.push(data.remove);
    const log = logIn(data.path);
    const target = new EventEmitter();
    const crashes: Crash[] = [];
    cleanups.push(installCrashHandlers({ log, target: target as unknown as NodeJS.Process, onCrash: (crash) => crashes.push(crash) }));
    target.emit('unhandledRejection', { status: 503 });
    await expect.poll(() => crashes.length).toBe(1);
    expect(crashes[0]).toMatchObject({ kind: 'unhandled_rejection', message: '{"status":503}' });
  });

  it('log a rejection the disk refused and let the console go on, while any other one still stops it', async () => {
    const data = makeTempDir('oc-crash-');
    cleanups.push(data.remove);
    const log = logIn(data.path);
    const target = new EventEmitter();
    const crashes: Crash[] = [];
    cleanups.push(installCrashHandlers({ log, target: target as unknown as NodeJS.Process, survivable: isDiskFullError, onCrash: (crash) => crashes.push(crash) }));
    // What better-sqlite3 throws for SQLITE_FULL, and what fs throws for ENOSPC.
    target.emit('unhandledRejection', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    target.emit('unhandledRejection', Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC' }));
    await expect.poll(() => readFileSync(log.file!, 'utf8')).toContain('no space left on device');
    expect(readFileSync(log.file!, 'utf8')).toContain('the console goes on');
    expect(crashes).toHaveLength(0);

    target.emit('unhandledRejection', new Error('a bug'));
    await expect.poll(() => crashes.length).toBe(1);
    expect(crashes[0]).toMatchObject({ kind: 'unhandled_rejection', message: 'a bug' });
  });

  it('say in one line for the host where the details are', () => {
    expect(crashLine({ kind: 'uncaught_exception', message: 'boom\nmore', logFile: '/d/logs/console.log' })).toBe(
      'Operator Console stopped after an unexpected error: boom. The details are in its log, /d/logs/console.log. Start it again with `npm run serve`; runs that were going on are shown as stranded and can be resumed.',
    );
  });
});
