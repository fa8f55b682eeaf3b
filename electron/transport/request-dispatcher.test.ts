import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maxRequestBytes } from '../../shared/contract';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { makeTempDir } from '../testing/temp-dir';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** With `logFile`, the logger says it writes that file (in the data directory, given its path). */
function startCore(options: { logFile?: string | ((dataDir: string) => string) } = {}) {
  const data = makeTempDir('oc-core-');
  const file = typeof options.logFile === 'function' ? options.logFile(data.path) : options.logFile;
  const log = createMemoryLogger(file ? { file } : {});
  const core = createCore({ dataDir: data.path, transport: 'browser', appVersion: 'test', log });
  cleanups.push(data.remove, () => core.close());
  return { core, log, dataDir: data.path };
}

function ledgerSnapshot(core: Core): string {
  const tables = ['projects', 'tasks', 'agents', 'runs', 'notices', 'ai_connections'];
  return JSON.stringify(tables.map((table) => core.ledger.db.prepare(`SELECT * FROM ${table}`).all()));
}

describe('requests through the dispatcher', () => {
  it('adds, lists and removes a project, answering in the contract shape', async () => {
    const { core } = startCore();
    const folder = makeTempDir('oc-project-');
    cleanups.push(folder.remove);
    const added = await core.dispatch('addProject', { path: folder.path }, { transport: 'browser' });
    expect(added.ok).toBe(true);
    const listed = await core.dispatch('listProjects', undefined, { transport: 'browser' });
    expect(listed).toMatchObject({ ok: true, value: [{ path: expect.stringContaining('oc-project-'), isGitRepo: false }] });
    const id = (listed as { value: Array<{ id: string }> }).value[0]!.id;
    expect(await core.dispatch('removeProject', { projectId: id }, { transport: 'browser' })).toEqual({ ok: true, value: { projectId: id } });
    expect(await core.dispatch('listProjects', {}, { transport: 'browser' })).toEqual({ ok: true, value: [] });
  });

  it('pushes an event when projects change', async () => {
    const { core } = startCore();
    const folder = makeTempDir('oc-project-');
    cleanups.push(folder.remove);
    const seen: string[] = [];
    core.events.listen((event) => seen.push(event));
    await core.dispatch('addProject', { path: folder.path }, { transport: 'browser' });
    expect(seen).toEqual(['projectsChanged']);
  });

  it.each([
    ['an unknown channel', 'dropTables', {}, 'unknown_channel'],
    ['a channel that is not a string', 42, {}, 'unknown_channel'],
    ['wrong types', 'addProject', { path: 42 }, 'invalid_request'],
    ['a missing field', 'addProject', {}, 'invalid_request'],
    ['an unexpected field', 'addProject', { path: '/tmp', admin: true }, 'invalid_request'],
    ['a non-object payload', 'removeProject', 'prj_1', 'invalid_request'],
    ['an oversized payload', 'addProject', { path: 'x'.repeat(maxRequestBytes + 10) }, 'payload_too_large'],
  ])('refuses %s with a stable code, logs it once and leaves the ledger untouched', async (_label, channel, input, code) => {
    const { core, log } = startCore();
    const before = ledgerSnapshot(core);
    const answer = await core.dispatch(channel, input, { transport: 'browser' });
    expect(answer).toMatchObject({ ok: false, error: { code } });
    expect(ledgerSnapshot(core)).toBe(before);
    expect(log.lines.filter((line) => line.code === code)).toHaveLength(1);
    // And the core keeps serving.
    expect(await core.dispatch('listProjects', undefined, { transport: 'browser' })).toEqual({ ok: true, value: [] });
  });

  it('answers domain failures with their own code and a message that says what to do', async () => {
    const { core } = startCore();
    const answer = await core.dispatch('addProject', { path: '/no/such/folder/here' }, { transport: 'browser' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'path_not_found', message: expect.stringContaining('does not exist') } });
    const folder = makeTempDir('oc-project-');
    cleanups.push(folder.remove);
    await core.dispatch('addProject', { path: folder.path }, { transport: 'browser' });
    const twice = await core.dispatch('addProject', { path: `${folder.path}/` }, { transport: 'browser' });
    expect(twice).toMatchObject({ ok: false, error: { code: 'project_exists' } });
  });

  it('hides unexpected failures behind a generic message, with the details only in the log, which it names', async () => {
    const { core, log } = startCore({ logFile: '/var/data/logs/console.log' });
    core.ledger.close(); // The ledger is gone: every query now throws inside the handler.
    const answer = await core.dispatch('listProjects', undefined, { transport: 'browser' });
    expect(answer).toEqual({
      ok: false,
      error: {
        code: 'internal',
        message: 'The console could not complete this request. Details are in the console’s log, /var/data/logs/console.log (Settings → About opens its folder).',
      },
    });
    expect(JSON.stringify(answer)).not.toContain('at ');
    expect(log.lines.some((line) => line.level === 'error' && String(line.error).includes('database'))).toBe(true);
  });

  it('answers where the log is, and opens its folder or says it could not, at the same validation as every channel', async () => {
    const { core, dataDir } = startCore({ logFile: (dir) => path.join(dir, 'logs', 'console.log') });
    const logDir = path.join(dataDir, 'logs');
    expect(await core.dispatch('getLogInfo', undefined, { transport: 'browser' })).toEqual({ ok: true, value: { logDir, logFile: path.join(logDir, 'console.log') } });
    // Whether a file manager opened depends on the machine; the answer always names the folder.
    expect(await core.dispatch('openLogFolder', undefined, { transport: 'browser' })).toMatchObject({ ok: true, value: { path: logDir, opened: expect.any(Boolean) } });
    expect(await core.dispatch('openLogFolder', { path: '/etc' }, { transport: 'browser' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('says so when this console writes no log file, rather than opening something else', async () => {
    const { core } = startCore();
    expect(await core.dispatch('getLogInfo', undefined, { transport: 'browser' })).toEqual({ ok: true, value: { logDir: null, logFile: null } });
    expect(await core.dispatch('openLogFolder', undefined, { transport: 'browser' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('writes a page’s crash to the log, a few a minute at most', async () => {
    const { core, log } = startCore();
    const report = { message: 'Cannot read properties of null (reading \'id\')', stack: 'TypeError: ...\n    at RunRow', componentStack: '\n    at RunRow', route: '/runs' };
    const answers = [];
    for (let i = 0; i < 12; i += 1) answers.push(await core.dispatch('reportRendererError', report, { transport: 'browser' }));
    expect(answers.slice(0, 10).every((answer) => answer.ok && (answer.value as { logged: boolean }).logged)).toBe(true);
    expect(answers.slice(10)).toEqual([{ ok: true, value: { logged: false } }, { ok: true, value: { logged: false } }]);
    const crashes = log.lines.filter((line) => line.message === 'a page of the console crashed');
    expect(crashes).toHaveLength(10);
    expect(crashes[0]).toMatchObject({ level: 'error', route: '/runs', componentStack: '\n    at RunRow' });
    expect(await core.dispatch('reportRendererError', { message: 'x'.repeat(3000), route: '/' }, { transport: 'browser' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});
