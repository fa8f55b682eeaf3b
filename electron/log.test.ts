import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyFileVault, SecretKeeper } from './connections/secret-vault';
import { createConsoleLog, createMemoryLogger, detailsInLog } from './log';
import { openLogFile, logLocation } from './log-file';
import { LogRedaction, logRedaction } from './log-redaction';
import { makeTempDir } from './testing/temp-dir';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDataDir(): string {
  const dir = makeTempDir('oc-log-');
  cleanups.push(dir.remove);
  return dir.path;
}

function fileLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the log file', () => {
  it('is <data dir>/logs/console.log, private, with every line the console logged, also on stderr', async () => {
    const dataDir = tempDataDir();
    const stderr: string[] = [];
    const log = createConsoleLog({ stderr: (line) => stderr.push(line) });
    log.info('before the data directory is known');
    const file = log.writeToFile(dataDir);
    expect(file).toBe(path.join(dataDir, 'logs', 'console.log'));
    expect(log.file).toBe(file);
    log.info('run started', { runId: 'run_1' });
    log.error('run failed to launch', { runId: 'run_1', error: 'Error: boom\n    at somewhere' });
    await log.close();

    const lines = fileLines(file!);
    expect(lines.map((line) => line.message)).toEqual(['run started', 'run failed to launch']);
    expect(lines[1]).toMatchObject({ level: 'error', runId: 'run_1', error: 'Error: boom\n    at somewhere' });
    expect(stderr.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual(['before the data directory is known', 'run started', 'run failed to launch']);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    // After close, stderr goes on; the file is left alone.
    log.info('after close');
    expect(stderr.at(-1)).toContain('after close');
    expect(fileLines(file!)).toHaveLength(2);
  });

  it('rotates by size and keeps a few old files, the newest as console.log.1', async () => {
    const dataDir = tempDataDir();
    const file = openLogFile(dataDir, { maxFileBytes: 2048, filesKept: 2 });
    const line = (n: number) => JSON.stringify({ n, padding: 'x'.repeat(100) });
    for (let n = 0; n < 200; n += 1) file.write(line(n));
    await file.close();

    const { dir } = logLocation(dataDir);
    expect(readdirSync(dir).sort()).toEqual(['console.log', 'console.log.1', 'console.log.2']);
    for (const name of ['console.log.1', 'console.log.2']) expect(statSync(path.join(dir, name)).size).toBeLessThanOrEqual(2048 + 200);
    // Nothing lost inside what is kept: the current file ends with the last line, .1 comes just before it.
    const current = fileLines(path.join(dir, 'console.log')).map((entry) => entry.n as number);
    const previous = fileLines(path.join(dir, 'console.log.1')).map((entry) => entry.n as number);
    expect(current.at(-1)).toBe(199);
    expect(previous.at(-1)! + 1).toBe(current[0]);
  });

  it('goes on with stderr alone when the file cannot be written, and says so once', async () => {
    const dataDir = tempDataDir();
    // A file where the logs folder should be.
    writeFileSync(path.join(dataDir, 'logs'), 'not a folder');
    const stderr: string[] = [];
    const log = createConsoleLog({ stderr: (line) => stderr.push(line) });
    expect(log.writeToFile(dataDir)).toBeUndefined();
    expect(log.file).toBeUndefined();
    log.warn('still logged');
    await log.flush();
    expect(stderr.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual(['the log file cannot be opened; logging to stderr only', 'still logged']);
  });

  it('flushes: once flush resolves, the lines are in the file', async () => {
    const dataDir = tempDataDir();
    const log = createConsoleLog({ stderr: () => undefined });
    const file = log.writeToFile(dataDir)!;
    for (let n = 0; n < 500; n += 1) log.info('line', { n });
    await log.flush();
    expect(fileLines(file)).toHaveLength(500);
    await log.close();
  });
});

describe('redaction in the log', () => {
  it('never lets a secret the console holds reach the file, however it was logged', async () => {
    const dataDir = tempDataDir();
    const secret = 'custom-gateway-key-9f8e7d6c5b4a';
    // The console holds the secret the way it always does: sealed (saved) and opened (delivered).
    const keeper = new SecretKeeper(new KeyFileVault(dataDir, createMemoryLogger()), () => new KeyFileVault(dataDir, createMemoryLogger()));
    keeper.open(keeper.seal(secret));

    const log = createConsoleLog({ stderr: () => undefined });
    const file = log.writeToFile(dataDir)!;
    log.error('request failed unexpectedly', { error: `Error: 401 from gateway for key ${secret}\n    at probe` });
    log.info(`the message itself: ${secret}`);
    log.warn('nested', { request: { headers: { 'x-note': `k=${secret}` } }, list: [secret] });
    log.warn('json-escaped', { error: JSON.stringify({ key: secret }) });
    await log.close();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(5);
    // Still one JSON object per line.
    expect(fileLines(file)).toHaveLength(4);
  });

  it('cuts what looks like a key even when the console never held it, and fields named for secrets', () => {
    const redaction = new LogRedaction();
    const log = createLogger(redaction);
    log.logger.info('keys', {
      openai: 'failed with sk-proj-AbCdEfGhIjKlMnOpQrStUvWx',
      anthropic: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx',
      github: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      google: 'AIzaSyA-abcdefghijklmnopqrstuvwxyz01234',
      header: 'Authorization: Bearer abcdefghijklmnop.qrstuvwx',
      url: 'http://127.0.0.1:4000/?token=3f9a0c7e1b2d4f6a8c0e',
      apiKey: 'plain-but-named',
      refresh_token: 'also-named',
      inputTokens: 1234,
      tokensUsed: 'kept: counts are not secrets',
    });
    const line = log.lines[0]!;
    expect(JSON.stringify(line)).not.toMatch(/AbCdEfGh|ghp_abc|AIzaSy|abcdefghijklmnop\.|3f9a0c7e|plain-but-named|also-named/);
    expect(line).toMatchObject({
      header: 'Authorization: Bearer [redacted]',
      url: 'http://127.0.0.1:4000/?token=[redacted]',
      apiKey: '[redacted]',
      refresh_token: '[redacted]',
      inputTokens: 1234,
      tokensUsed: 'kept: counts are not secrets',
    });
  });

  it('is the same redaction the memory logger uses, so tests see what the file would hold', () => {
    const value = 'remembered-secret-value-0123';
    logRedaction.remember(value);
    const log = createMemoryLogger();
    log.info(`value ${value}`);
    expect(log.lines[0]!.message).toBe('value [redacted]');
  });
});

describe('messages that point to the log', () => {
  it('name the file, and say stderr when there is none', () => {
    expect(detailsInLog({ file: '/data/logs/console.log' })).toBe('Details are in the console’s log, /data/logs/console.log (Settings → About opens its folder).');
    expect(detailsInLog({})).toBe('Details are in the console’s log (its standard error).');
  });
});

/** A logger on its own redaction, keeping parsed lines. */
function createLogger(redaction: LogRedaction) {
  const lines: Array<Record<string, unknown>> = [];
  const log = createConsoleLog({ stderr: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), redaction });
  return { logger: log, lines };
}
