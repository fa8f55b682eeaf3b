import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyFileVault, SecretKeeper } from '../connections/secret-vault';
import { createConsoleLog, createLogger as createRecordLogger, createMemoryLogger, detailsInLog } from './log';
import { openLogFile, logLocation } from './log-file';
import { LogRedaction, logRedaction } from './log-redaction';
import { makeTempDir } from '../testing/temp-dir';

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
  it('is <data dir>/logs/console.log, private, with every record the console logged, those from before it was opened first', async () => {
    const dataDir = tempDataDir();
    const log = createConsoleLog({ terminal: () => undefined });
    log.info('data directory lock taken', { dataDir });
    const file = log.writeToFile(dataDir);
    expect(file).toBe(path.join(dataDir, 'logs', 'console.log'));
    expect(log.file).toBe(file);
    log.info('run started', { runId: 'run_1' });
    log.error('run failed to launch', { runId: 'run_1', error: 'Error: boom\n    at somewhere' });
    await log.close();

    const lines = fileLines(file!);
    expect(lines.map((line) => line.message)).toEqual(['data directory lock taken', 'run started', 'run failed to launch']);
    expect(lines[2]).toMatchObject({ level: 'error', runId: 'run_1', error: 'Error: boom\n    at somewhere' });
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    // After close the file is left alone.
    log.info('after close');
    expect(fileLines(file!)).toHaveLength(3);
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

  it('goes on without the file when it cannot be made, and says so once at the terminal', async () => {
    const dataDir = tempDataDir();
    // A file where the logs folder should be.
    writeFileSync(path.join(dataDir, 'logs'), 'not a folder');
    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line) });
    expect(log.writeToFile(dataDir)).toBeUndefined();
    expect(log.file).toBeUndefined();
    log.info('not kept anywhere');
    log.warn('still said');
    await log.flush();
    expect(terminal).toHaveLength(2);
    expect(terminal[0]).toMatch(/^Operator Console warning: the log file cannot be opened; only warnings and errors are kept, here \(dataDir: .*; error: .*\)\.$/);
    expect(terminal[1]).toBe('Operator Console warning: still said.');
  });

  it('flushes: once flush resolves, the lines are in the file', async () => {
    const dataDir = tempDataDir();
    const log = createConsoleLog({ terminal: () => undefined });
    const file = log.writeToFile(dataDir)!;
    for (let n = 0; n < 500; n += 1) log.info('line', { n });
    await log.flush();
    expect(fileLines(file)).toHaveLength(500);
    await log.close();
  });
});

describe('the terminal', () => {
  it('gets warnings and errors as sentences, never a JSON record or a stack; the file keeps every record whole', async () => {
    const dataDir = tempDataDir();
    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line), level: 'info' });
    const file = log.writeToFile(dataDir)!;
    log.info('browser host listening', { origin: 'http://127.0.0.1:4000' });
    log.info('daily ledger backup taken', { file: '/data/backups/ledger-daily.sqlite' });
    log.warn('stopping a process left by a previous console', { pid: 4242, pgid: 4242 });
    log.error('run failed to launch', { runId: 'run_1', error: new Error('spawn ENOENT').stack, exitCode: null, nested: { kept: true } });
    log.error('told another way', { runId: 'run_1' }, { terminal: false });
    await log.close();

    expect(terminal).toEqual([
      'Operator Console warning: stopping a process left by a previous console (pid: 4242; pgid: 4242).',
      'Operator Console error: run failed to launch (runId: run_1; error: Error: spawn ENOENT; exitCode: null; nested: {"kept":true}).',
    ]);
    const records = fileLines(file);
    expect(records.map((record) => record.message)).toEqual([
      'browser host listening',
      'daily ledger backup taken',
      'stopping a process left by a previous console',
      'run failed to launch',
      'told another way',
    ]);
    expect(records[3]?.error).toMatch(/^Error: spawn ENOENT\n\s+at /);
  });

  it('gets every record with its stack when debugging is asked for', () => {
    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line), level: 'debug' });
    log.debug('checkpointed', { walFrames: 3 });
    log.error('run failed to launch', { error: 'Error: spawn ENOENT\n    at launch (attempt-runner.ts:1:1)' });
    expect(terminal).toEqual([
      'Operator Console (debug): checkpointed (walFrames: 3).',
      'Operator Console error: run failed to launch (error: Error: spawn ENOENT\n    at launch (attempt-runner.ts:1:1)).',
    ]);
  });

  it('gets what the shell tells the person as it is, which the file keeps as a record', async () => {
    const dataDir = tempDataDir();
    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line) });
    const file = log.writeToFile(dataDir)!;
    log.tell('Operator Console: SIGTERM received, shutting down.');
    log.tell('Operator Console: the ledger is damaged.', 'error');
    await log.close();
    expect(terminal).toEqual(['Operator Console: SIGTERM received, shutting down.', 'Operator Console: the ledger is damaged.']);
    expect(fileLines(file)).toMatchObject([
      { level: 'info', message: 'Operator Console: SIGTERM received, shutting down.' },
      { level: 'error', message: 'Operator Console: the ledger is damaged.' },
    ]);
  });

  it('is all a logger without a file writes to', () => {
    const terminal: string[] = [];
    const log = createRecordLogger({ terminal: (line) => terminal.push(line) });
    log.info('data directory lock taken');
    log.warn('took over the data directory lock of a console that is no longer running', { pid: 7 });
    expect(terminal).toEqual(['Operator Console warning: took over the data directory lock of a console that is no longer running (pid: 7).']);
  });
});

describe('redaction in the log', () => {
  it('never lets a secret the console holds reach the file, however it was logged', async () => {
    const dataDir = tempDataDir();
    const secret = 'custom-gateway-key-9f8e7d6c5b4a';
    // The console holds the secret the way it always does: sealed (saved) and opened (delivered).
    const keeper = new SecretKeeper(new KeyFileVault(dataDir, createMemoryLogger()), () => new KeyFileVault(dataDir, createMemoryLogger()));
    keeper.open(keeper.seal(secret));

    const terminal: string[] = [];
    const log = createConsoleLog({ terminal: (line) => terminal.push(line) });
    const file = log.writeToFile(dataDir)!;
    log.error('request failed unexpectedly', { error: `Error: 401 from gateway for key ${secret}\n    at probe` });
    log.info(`the message itself: ${secret}`);
    log.warn('nested', { request: { headers: { 'x-note': `k=${secret}` } }, list: [secret] });
    log.warn('json-escaped', { error: JSON.stringify({ key: secret }) });
    await log.close();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    // The terminal's sentences too.
    expect(terminal).toHaveLength(3);
    expect(terminal.join('\n')).not.toContain(secret);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(5);
    // Still one JSON object per line.
    expect(fileLines(file)).toHaveLength(4);
  });

  it('cuts what looks like a key even when the console never held it, and fields named for secrets', () => {
    const redaction = new LogRedaction();
    const log = recordingLogger(redaction);
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
  it('name the file, and say there is none when there is none', () => {
    expect(detailsInLog({ file: '/data/logs/console.log' })).toBe('Details are in the console’s log, /data/logs/console.log (Settings → About opens its folder).');
    expect(detailsInLog({})).toBe('The console keeps no log file this time (it could not be made; the terminal that started the console says why).');
  });
});

/** A logger on its own redaction, keeping parsed records. */
function recordingLogger(redaction: LogRedaction) {
  const lines: Array<Record<string, unknown>> = [];
  const log = createRecordLogger({ sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), terminal: null, redaction });
  return { logger: log, lines };
}
