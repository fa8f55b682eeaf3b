import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../core';
import type { ChannelInput, ChannelName } from '../../shared/contract';
import { createMemoryLogger } from '../platform/log';
import { callCore } from '../testing/core-call';
import { makeTempDir } from '../testing/temp-dir';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const data = makeTempDir('oc-tasks-data-');
  const project = makeTempDir('oc-tasks-project-');
  const core = createCore({ dataDir: data.path, transport: 'browser', appVersion: 'test', log: createMemoryLogger() });
  cleanups.push(data.remove, project.remove, () => core.close());
  const call = <C extends ChannelName>(channel: C, input?: ChannelInput<C>) => callCore(core, channel, input);
  const added = await call('addProject', { path: project.path });
  return { call, core, projectDir: project.path, projectId: added.id };
}

function write(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('tasks', () => {
  it('are created, edited and archived, and archived ones leave the list', async () => {
    const { call, projectId } = await setup();
    const task = await call('createTask', { projectId, title: 'Add retries', prompt: 'Retry failed uploads' });
    expect(task).toMatchObject({ title: 'Add retries', planPath: null, archived: false, latestRun: null });
    const edited = await call('updateTask', { taskId: task.id, prompt: 'Retry failed uploads three times', planPath: 'docs/plan.md' });
    expect(edited).toMatchObject({ title: 'Add retries', prompt: 'Retry failed uploads three times', planPath: 'docs/plan.md' });
    await call('setTaskArchived', { taskId: task.id, archived: true });
    expect(await call('listTasks', { projectId })).toEqual([]);
    expect(await call('listTasks', { projectId, includeArchived: true })).toHaveLength(1);
  });

  it('refuse artifact paths that leave the project', async () => {
    const { core, projectId } = await setup();
    for (const planPath of ['/etc/passwd', '../other/PLAN-x.md']) {
      const answer = await core.dispatch('createTask', { projectId, title: 't', prompt: 'p', planPath }, { transport: 'browser' });
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
  });

  it('are imported one per PLAN/CODE_REVIEW pair under agent-task/, once', async () => {
    const { call, projectDir, projectId } = await setup();
    write(path.join(projectDir, 'agent-task/m1/1_api/PLAN-api.md'), '# Build the upload API\n\nSteps…');
    write(path.join(projectDir, 'agent-task/m1/1_api/CODE_REVIEW-api.md'), '');
    write(path.join(projectDir, 'agent-task/m1/2_retries/PLAN-retries.md'), 'no heading here');
    write(path.join(projectDir, 'agent-task/m1/2_retries/CODE_REVIEW-1.md'), '');
    write(path.join(projectDir, 'agent-task/m2/3_lonely/PLAN-lonely.md'), '# Lonely');

    const first = await call('importTasks', { projectId });
    expect(first.imported.map((task) => [task.title, task.planPath, task.reviewPath])).toEqual([
      ['Build the upload API', 'agent-task/m1/1_api/PLAN-api.md', 'agent-task/m1/1_api/CODE_REVIEW-api.md'],
      ['2_retries', 'agent-task/m1/2_retries/PLAN-retries.md', 'agent-task/m1/2_retries/CODE_REVIEW-1.md'],
    ]);
    expect(first.unpaired).toEqual([{ path: 'agent-task/m2/3_lonely/PLAN-lonely.md', reason: expect.stringContaining('CODE_REVIEW') }]);

    const second = await call('importTasks', { projectId });
    expect(second.imported).toEqual([]);
    expect(second.alreadyImported).toBe(2);
    expect(await call('listTasks', { projectId })).toHaveLength(2);
  });

  it('import nothing, without error, from a project with no agent-task folder', async () => {
    const { call, projectId } = await setup();
    expect(await call('importTasks', { projectId })).toEqual({ imported: [], alreadyImported: 0, unpaired: [] });
  });
});
