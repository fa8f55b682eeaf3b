import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { SearchIndexState, SearchResult } from '../../../shared/search';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { SearchPage } from './search-page';

const outputResult: SearchResult = {
  source: 'output',
  runId: 'run_1',
  runStatus: 'failed',
  taskId: 'task_1',
  taskTitle: 'Deploy the vault',
  projectId: 'project_1',
  agentId: 'agent_1',
  agentName: 'Codex fast',
  noticeId: null,
  at: '2026-03-01T09:00:00.000Z',
  byteOffset: 123456,
  snippet: [
    { text: 'deploy step: ', match: false },
    { text: 'quokkaphrase', match: true },
    { text: ' <b>rejected</b> by the vault', match: false },
  ],
};
const taskResult: SearchResult = { ...outputResult, source: 'task', runId: null, runStatus: null, agentId: null, agentName: null, byteOffset: null, taskTitle: 'Teach the quokka' };

function showSearch(
  route = '/search?q=quokkaphrase',
  indexStates: SearchIndexState[] = [{ complete: true, rebuilding: false, indexedBytes: 0, remainingBytes: 0 }],
  order: 'relevance' | 'newest' = 'relevance',
) {
  let asked = 0;
  const client = fakeOperatorClient({
    getSearchIndexState: () => indexStates[Math.min(asked++, indexStates.length - 1)]!,
    searchOutput: () => ({ results: [outputResult, taskResult], hasMore: order === 'newest', order, terms: ['quokkaphrase'], index: { complete: false, rebuilding: false, indexedBytes: 10, remainingBytes: 3 * 1024 * 1024 } }),
    listAgents: () => [],
    listProjects: () => [],
  });
  return { ...renderInConsole(<SearchPage />, { client, route }), client };
}

describe('the Search page', () => {
  it('searches for the address’s query and marks the words found (text, never markup)', async () => {
    const { client } = showSearch();
    const results = await screen.findByRole('list', { name: 'Search results' });
    const first = within(results).getAllByRole('link')[0]!;
    expect(first.querySelector('mark')?.textContent).toBe('quokkaphrase');
    // What the ledger holds is shown as text: a tag in the output stays a tag, never an element.
    expect(first.textContent).toContain('<b>rejected</b>');
    expect(first.querySelector('b')).toBeNull();
    expect(client.inputsOf('searchOutput')[0]).toMatchObject({ query: 'quokkaphrase' });
  });

  it('says how the results are ordered: best first, or newest first when there are more matches than are ranked', async () => {
    showSearch();
    expect((await screen.findByText(/results, /)).textContent).toBe('2 results, best first.');
  });

  it('says when a search matches more rows than are ranked, so its results come newest first', async () => {
    showSearch(undefined, undefined, 'newest');
    expect((await screen.findByText(/results, /)).textContent).toBe('2+ results, newest first (more matches than are ranked by relevance).');
  });

  it('shows how far a rebuild of the index has got, asks again while it is incomplete, and is gone once it is complete', async () => {
    const mb = 1_000_000;
    const { client } = showSearch('/search', [
      { complete: false, rebuilding: true, indexedBytes: 1 * mb, remainingBytes: 3 * mb },
      { complete: false, rebuilding: true, indexedBytes: 3 * mb, remainingBytes: 1 * mb },
      { complete: true, rebuilding: false, indexedBytes: 4 * mb, remainingBytes: 0 },
    ]);
    const progress = await screen.findByRole('progressbar', { name: /Rebuilding the search index/ });
    expect(progress.getAttribute('value')).toBe(String(1 * mb));
    expect(progress.getAttribute('max')).toBe(String(4 * mb));
    expect(screen.getByRole('status').textContent).toMatch(/1 MB indexed, 3 MB to go\. Results may miss some output until it is done/);
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/3 MB indexed, 1 MB to go/), { timeout: 3000 });
    await vi.waitFor(() => expect(screen.queryByRole('progressbar')).toBeNull(), { timeout: 3000 });
    // Once complete, it is not asked again.
    const asked = client.inputsOf('getSearchIndexState').length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(client.inputsOf('getSearchIndexState')).toHaveLength(asked);
  });

  it('is keyboard first: the field focused, ↓ to the results, Enter opens the run at the byte with the match to find', async () => {
    showSearch();
    const field = screen.getByRole('searchbox', { name: 'Search output' });
    expect(document.activeElement).toBe(field);
    const results = await screen.findByRole('list', { name: 'Search results' });
    const [first, second] = within(results).getAllByRole('link');
    const user = userEvent.setup();
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(first);
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(second);
    await user.keyboard('{Escape}');
    expect(document.activeElement).toBe(field);
    await user.keyboard('{ArrowDown}{Enter}');
    await vi.waitFor(() => expect(currentRoute()).toBe('/runs/run_1'));
    expect(window.location.hash).toBe('#/runs/run_1?at=123456&find=quokkaphrase');
  });

  it('puts a filter in the address and in the request', async () => {
    const { client } = showSearch();
    await screen.findByRole('list', { name: 'Search results' });
    await userEvent.setup().selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'failed');
    await vi.waitFor(() => expect(client.inputsOf('searchOutput').at(-1)).toMatchObject({ query: 'quokkaphrase', status: 'failed' }));
    expect(window.location.hash).toBe('#/search?q=quokkaphrase&status=failed');
  });
});
