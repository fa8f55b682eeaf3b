import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { handToSandboxUser, sandboxUser } from '../sandbox/sandbox-user';
import { prepareTaskRoot } from '../task-root/task-root';
import type { RunFileTools, TaskRoot } from '../task-root/task-root-layout';
import { fixtureTools, git, makeOperatorFixture, type OperatorFixture } from '../sandbox/test-fixtures';

/**
 * Fixtures for the landing tests (only tests import this file): the confinement tests' fake operator
 * and project, a sandboxed run's task root (its files the sandbox user's when the suite runs as root,
 * as a real run leaves them), and the agent's side: writing and committing in its view.
 */

export interface LandingFixture extends OperatorFixture {
  tools: RunFileTools;
}

export async function makeLandingFixture(prefix: string): Promise<LandingFixture> {
  const fixture = makeOperatorFixture(prefix);
  return { ...fixture, tools: await fixtureTools(fixture, { sandboxed: true }) };
}

export async function prepareRun(fixture: LandingFixture, runId: string): Promise<TaskRoot> {
  return prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: { path: fixture.project, isGitRepo: true }, owner: sandboxUser(), tools: fixture.tools });
}

/** The agent writes files in its view (as the sandbox's user, like a sandboxed agent). */
export async function agentWrites(taskRoot: TaskRoot, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    writeFileSync(path.join(taskRoot.view, file), content);
  }
  await handToSandboxUser([taskRoot.view, taskRoot.repository!.gitDir], sandboxUser());
}

/** The agent commits in its view with its own git (its store's config and hooks are its business there). */
export async function agentCommits(taskRoot: TaskRoot, files: Record<string, string>, message: string): Promise<string> {
  await agentWrites(taskRoot, files);
  git(taskRoot.view, 'add', '-A');
  git(taskRoot.view, '-c', 'core.hooksPath=/dev/null', 'commit', '--quiet', '-m', message);
  await handToSandboxUser([taskRoot.view, taskRoot.repository!.gitDir], sandboxUser());
  return git(taskRoot.view, 'rev-parse', 'HEAD');
}

/** The operator commits in the project. */
export function operatorCommits(project: string, files: Record<string, string>, message: string): string {
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(project, file), content);
  git(project, 'add', '-A');
  git(project, 'commit', '--quiet', '-m', message);
  return git(project, 'rev-parse', 'HEAD');
}

export const operatorIdentity = { name: 'Ada Operator', email: 'ada@example.invalid' };
