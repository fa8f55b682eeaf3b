import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { callCore } from '../testing/core-call';
import { makeTempDir } from '../testing/temp-dir';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function core(): Core {
  const dir = makeTempDir('oc-search-channel-');
  const made = createCore({ dataDir: dir.path, transport: 'browser', appVersion: 'test', log: createMemoryLogger() });
  cleanups.push(() => dir.remove(), () => made.close());
  return made;
}

describe('the searchOutput channel', () => {
  it('answers a task found by its prompt, through the contract, with how complete the index is', async () => {
    const console = core();
    const folder = makeTempDir('oc-search-project-');
    cleanups.push(() => folder.remove());
    const project = await callCore(console, 'addProject', { path: folder.path });
    await callCore(console, 'createTask', { projectId: project.id, title: 'Rotate the keys', prompt: 'Rotate every signing key in the marmoset service' });
    const answer = await callCore(console, 'searchOutput', { query: 'marmoset' });
    expect(answer.results).toMatchObject([{ source: 'task', taskTitle: 'Rotate the keys', runId: null, byteOffset: null }]);
    expect(answer.results[0]!.snippet).toContainEqual({ text: 'marmoset', match: true });
    expect(answer.index.complete).toBe(true);
    expect(await callCore(console, 'getSearchIndexState')).toMatchObject({ complete: true });
  });

  it('refuses bad input with a stable code and says what to do: no words, too long, a range backwards', async () => {
    const console = core();
    await expect(callCore(console, 'searchOutput', { query: '" -- *' })).rejects.toMatchObject({ code: 'invalid_request', reason: 'no_search_words' });
    await expect(callCore(console, 'searchOutput', { query: 'x'.repeat(501) })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(
      callCore(console, 'searchOutput', { query: 'error', from: '2026-12-04T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
