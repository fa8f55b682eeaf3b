import type { ServiceConnection } from '../service/service-client';
import { fixtureAgentPath } from './output-test-kit';

/**
 * The steps an operator takes to get a run going, over a client of the console service: the project
 * added, an agent of the fixture CLI (through the command provider, with `args`), a task, and its run.
 */
export async function startFixtureRun(
  connection: Pick<ServiceConnection, 'call'>,
  options: { project: string; args: string[]; agentName: string; taskTitle: string },
): Promise<{ runId: string; agentId: string }> {
  const project = await connection.call('addProject', { path: options.project });
  const agent = await connection.call('createAgent', {
    name: options.agentName,
    providerId: 'command',
    model: 'fixture',
    profileId: 'program-codex-json',
    executablePath: fixtureAgentPath,
    commandArgs: options.args,
  });
  const task = await connection.call('createTask', { projectId: project.id, title: options.taskTitle, prompt: 'Carry on' });
  const run = await connection.call('startRun', { taskId: task.id, agentId: agent.id });
  return { runId: run.id, agentId: agent.id };
}
