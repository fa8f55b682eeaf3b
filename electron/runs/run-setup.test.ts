import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { openRunTestBed, present, type RunTestBed } from '../testing/run-test-kit';

/**
 * A project's setup in real runs: real bubblewrap (a sandboxed agent with a managed AI connection),
 * real git (the project is a repository; its ignored files reach the view only by being copied), a
 * real PTY for the setup command and the agent.
 */

const key = 'sk-setup-MANAGEDKEY-8c1d4e7a2b9f3c6d0e5a';
const dbPassword = 'db-password-4b8e1f7c3a9d';
const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

const beds: RunTestBed[] = [];
const temps: Array<{ remove(): void }> = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
  temps.splice(0).forEach((temp) => temp.remove());
});

async function openConsole() {
  const bed = await openRunTestBed();
  beds.push(bed);
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: key, ownership: 'shared', agentScope: 'all' });
  const outside = makeTempDir('oc-setup-outside-');
  temps.push(outside);
  return {
    bed,
    /** A folder outside the project and the data directory, with something an agent would like to reach. */
    outside: realpathSync(outside.path),
    /** A sandboxed agent (the command provider) running these fixture-agent arguments. */
    sandboxedAgent: async (args: string[]) => {
      const agent = await bed.createAgent(args, { environmentId: 'env_sandboxed', homeMode: 'isolated' });
      await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
      return agent;
    },
    output: (runId: string) => new TextDecoder().decode(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes),
  };
}

/** git ignores these in the project, so only a copy brings them into a run's view. */
function ignoreInProject(projectDir: string, names: string[]): void {
  writeFileSync(path.join(projectDir, '.gitignore'), `${names.join('\n')}\n`);
}

describe('a project’s setup command', () => {
  it('runs in the view inside the sandbox before the agent, with its output in the ledger under a setup marker, and the agent gets the copied files and layered variables', async () => {
    const { bed, outside, sandboxedAgent, output } = await openConsole();
    ignoreInProject(bed.projectDir, ['.env', '.env.*', 'config/']);
    writeFileSync(path.join(bed.projectDir, '.env'), 'API_URL=http://127.0.0.1:9\n');
    writeFileSync(path.join(outside, 'credentials'), 'operator-secret-credentials\n');
    symlinkSync(path.join(outside, 'credentials'), path.join(bed.projectDir, '.env.production'));
    mkdirSync(path.join(bed.projectDir, 'config'));
    writeFileSync(path.join(bed.projectDir, 'config', 'app.local.json'), '{"local":true}\n');
    const escaped = path.join(bed.projectDir, 'escaped-by-setup');
    const setupCommand = [
      'echo "setup ran in $PWD" > setup-marker.txt',
      'echo setup-output-line',
      'echo "home is $HOME"',
      'echo "password is $DB_PASSWORD"',
      `touch ${escaped} 2>/dev/null || true`,
      `if ls ${bed.dataDir}/ledger.sqlite >/dev/null 2>&1; then echo DATA-VISIBLE; else echo data-hidden; fi`,
    ].join('; ');
    await bed.call('updateProjectSetup', { projectId: bed.projectId, copyPatterns: ['.env*', 'config/*.local.json'], setupCommand });
    const agent = await sandboxedAgent([
      '--print-file',
      'setup-marker.txt',
      '--print-file',
      '.env',
      '--print-file',
      'config/app.local.json',
      '--print-file',
      '.env.production',
      '--print-env',
      'SHARED',
      '--print-env',
      'NODE_ENV',
      '--print-env',
      'DB_PASSWORD',
    ]);
    const task = await bed.createTask();
    await bed.call('setLayerVariables', {
      layer: 'project',
      ownerId: bed.projectId,
      variables: [
        { name: 'NODE_ENV', secret: false, value: 'test' },
        { name: 'SHARED', secret: false, value: 'from-project' },
        { name: 'DB_PASSWORD', secret: true, value: dbPassword },
      ],
    });
    await bed.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'SHARED', secret: false, value: 'from-agent' }] });
    await bed.call('setLayerVariables', { layer: 'task', ownerId: task.id, variables: [{ name: 'SHARED', secret: false, value: 'from-task' }] });

    const statuses: string[] = [];
    let runId = '';
    const unsubscribe = bed.core.events.listen((event, payload) => {
      if (event !== 'runsChanged' || !runId || !(payload as { runIds: string[] }).runIds.includes(runId)) return;
      const status = bed.core.ledger.runs.row(runId)?.status;
      if (status && statuses.at(-1) !== status) statuses.push(status);
    });
    runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 30_000);
    unsubscribe();
    const text = output(runId);

    expect(run.status, text).toBe('succeeded');
    expect(run.confinement.sandbox).toBe('bubblewrap');
    expect(statuses.slice(-3)).toEqual(['setting_up', 'running', 'succeeded']);
    // The setup's output, between the console's two setup lines, and all of it before the agent's.
    const opening = text.indexOf('── setup · echo "setup ran in $PWD" > setup-marker.txt; echo setup-output-line;');
    const setupLine = text.indexOf('setup-output-line\r\n');
    const closing = text.indexOf('── setup finished · the agent starts ──');
    const agentSaw = text.indexOf('file setup-marker.txt:');
    expect(opening, text).toBeGreaterThanOrEqual(0);
    expect(setupLine).toBeGreaterThan(opening);
    expect(closing).toBeGreaterThan(setupLine);
    expect(agentSaw).toBeGreaterThan(closing);
    // It ran in the view, confined: the run's own home, no project to write to, no data directory.
    expect(text).toContain(`setup ran in ${run.cwd}`);
    expect(text).toContain(`home is ${path.join(present(run.taskRoot, 'task root'), 'home')}`);
    expect(text).toContain('data-hidden');
    expect(text).not.toContain('DATA-VISIBLE');
    expect(existsSync(escaped)).toBe(false);
    // The copied files arrived; the link out of the project did not.
    expect(text).toContain('API_URL=http://127.0.0.1:9');
    expect(text).toContain('{\\"local\\":true}');
    expect(text).toMatch(/file \.env\.production: ENOENT/);
    expect(text).not.toContain('operator-secret-credentials');
    expect(lstatSync(path.join(present(run.cwd, 'cwd'), '.env')).isFile()).toBe(true);
    // Variables in layers: the task's override won, and the secret reached the run but not the record.
    expect(text).toContain('SHARED=from-task');
    expect(text).toContain('NODE_ENV=test');
    expect(text).toContain('DB_PASSWORD=[redacted]');
    expect(text).toContain('password is [redacted]');
    expect(text).not.toContain(dbPassword);
    expect(run.setup).toMatchObject({
      setupCommand,
      setup: { status: 'succeeded', attempt: 1, exitCode: 0 },
      copiedFiles: [
        { path: '.env', bytes: 27 },
        { path: 'config/app.local.json', bytes: 15 },
      ],
      skippedFiles: [{ path: '.env.production', reason: 'a link out of the project folder, which is never followed' }],
      variables: [
        { name: 'NODE_ENV', source: 'project', secret: false, value: 'test', overrides: [] },
        { name: 'SHARED', source: 'task', secret: false, value: 'from-task', overrides: ['project', 'agent'] },
        { name: 'DB_PASSWORD', source: 'project', secret: true, value: null, overrides: [] },
      ],
    });
    const events = await bed.call('listRunEvents', { runId });
    expect(events.events.map((event: { kind: string }) => event.kind)).toEqual(expect.arrayContaining(['setup_started', 'setup_finished']));
    for (const where of [JSON.stringify(events), JSON.stringify(run), JSON.stringify(bed.log.lines)]) expect(where).not.toContain(dbPassword);
  });

  it('that fails ends the attempt as setup_failed, starts no agent, retries nothing and raises a notice linking to the project’s setup', async () => {
    const { bed, sandboxedAgent, output } = await openConsole();
    await bed.call('updateProjectSetup', { projectId: bed.projectId, setupCommand: 'echo installing; echo "npm ERR! missing package" >&2; exit 7' });
    const agent = await sandboxedAgent(['--write-file', 'agent-ran.txt', '--lines', '1']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 30_000);
    const text = output(runId);

    expect(run.status, text).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'setup_failed', reason: 'setup_command_failed', actionUrl: `#/settings/projects/${bed.projectId}?field=setup-command` });
    expect(run.failure?.message).toContain('exited with code 7, so the agent did not start');
    expect(run.attempts).toMatchObject([{ number: 1, status: 'failed', failureCode: 'setup_failed', exitCode: 7 }]);
    expect(text).toContain('npm ERR! missing package');
    expect(text).toContain('── setup failed · exit code 7 · the agent does not start ──');
    expect(text).not.toContain('line 1 of 1');
    expect(existsSync(path.join(present(run.cwd, 'cwd'), 'agent-ran.txt'))).toBe(false);
    expect(run.setup?.setup).toMatchObject({ status: 'failed', exitCode: 7 });
    // No retry comes, however long one waits for it (the profile would allow three attempts).
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await bed.call('getRun', { runId })).attempts).toHaveLength(1);
    const notices = await bed.call('listNotices', { runId });
    expect(notices).toMatchObject([
      { kind: 'setup_command_failed', title: 'Project setup failed', code: 'setup_failed', actionLabel: 'Open the project’s setup', actionUrl: `#/settings/projects/${bed.projectId}?field=setup-command`, status: 'open' },
    ]);
  });

  it('stops when the operator stops the run while it sets up, and no agent starts', async () => {
    const { bed, sandboxedAgent } = await openConsole();
    await bed.call('updateProjectSetup', { projectId: bed.projectId, setupCommand: 'echo waiting; sleep 60' });
    const agent = await sandboxedAgent(['--write-file', 'agent-ran.txt']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    await bed.waitForRun(runId, (run) => run.status === 'setting_up' && run.outputBytes > 0, 30_000);
    expect((await bed.call('listRuns', { status: 'setting_up' })).runs.map((run: { id: string }) => run.id)).toEqual([runId]);
    await bed.call('stopRun', { runId });
    const run = await bed.waitForRun(runId, ended, 15_000);
    expect(run.status).toBe('cancelled');
    expect(run.attempts).toMatchObject([{ status: 'cancelled', failureCode: 'cancelled' }]);
    expect(run.setup?.setup).toMatchObject({ status: 'cancelled' });
    expect(existsSync(path.join(present(run.cwd, 'cwd'), 'agent-ran.txt'))).toBe(false);
  });

  it('left setting up by a console that closed is stranded at the next start, its setup process stopped', async () => {
    const { bed, sandboxedAgent } = await openConsole();
    await bed.call('updateProjectSetup', { projectId: bed.projectId, setupCommand: 'echo waiting; sleep 60' });
    const agent = await sandboxedAgent(['--write-file', 'agent-ran.txt']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    await bed.waitForRun(runId, (run) => run.status === 'setting_up' && run.outputBytes > 0, 30_000);
    const locator = bed.core.ledger.runs.locators(runId).find((entry) => entry.kind === 'process');
    expect(locator?.data.pid).toEqual(expect.any(Number));

    await bed.restart();
    const run = await bed.waitForRun(runId, ended, 15_000);
    expect(run.status).toBe('stranded');
    expect(run.attempts).toMatchObject([{ status: 'stranded' }]);
    expect(() => process.kill(locator!.data.pid as number, 0)).toThrow();
    expect(existsSync(path.join(present(run.cwd, 'cwd'), 'agent-ran.txt'))).toBe(false);
  });

  it('copies again on a retry without writing through a link the earlier attempt left in the view', async () => {
    const { bed, outside, sandboxedAgent, output } = await openConsole();
    ignoreInProject(bed.projectDir, ['.env.local']);
    writeFileSync(path.join(bed.projectDir, '.env.local'), 'FROM_PROJECT=1\n');
    const target = path.join(outside, 'operator-file');
    writeFileSync(target, 'untouched\n');
    await bed.call('updateProjectSetup', { projectId: bed.projectId, copyPatterns: ['.env.local'] });
    // Each attempt reads the copy, then replaces it with a link to a file outside, and fails.
    const agent = await sandboxedAgent(['--print-file', '.env.local', '--shell', `ln -sf ${target} .env.local`, '--exit-code', '1']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 45_000);
    const text = output(runId);

    expect(run.attempts.length, text).toBe(3);
    expect(readFileSync(target, 'utf8')).toBe('untouched\n');
    // Every attempt, the second and third too, found the project's file, not the link.
    expect(text.match(/file \.env\.local: \S+ "FROM_PROJECT=1/g)?.length, text).toBe(3);
    expect(run.setup?.copiedFiles).toEqual([{ path: '.env.local', bytes: 15 }]);
  });
});

describe('a secret variable the console cannot read', () => {
  it('locked (sealed by the desktop app, not unlocked for this console): the run is refused before anything starts, with one notice that names the variable and links to it; admitting the agent again leaves it open, a later run that reads its variables resolves it', async () => {
    const { bed } = await openConsole();
    const agent = await bed.createAgent(['--print-env', 'DEPLOY_TOKEN', '--lines', '1']);
    await bed.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'DEPLOY_TOKEN', secret: true, value: 'deploy-5f4e3d2c1b0a' }] });
    // Sealed by the desktop app with safeStorage before the service existed: locked until the app unlocks it.
    bed.core.ledger.db.prepare("UPDATE layer_variables SET sealed_value = 'electron-safe-storage:AAAA' WHERE name = 'DEPLOY_TOKEN'").run();
    const task = await bed.createTask('Deploy the preview');
    const refused = await bed.waitForRun((await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(refused.status).toBe('refused');
    expect(refused.attempts).toEqual([]);
    expect(refused.failure).toMatchObject({ code: 'configuration_incomplete', reason: 'variable_unreadable', actionUrl: `#/agents/${agent.id}` });
    expect(refused.failure?.message).toContain('The secret value of DEPLOY_TOKEN (an agent variable) cannot be read now. It was saved by the desktop app');
    expect(existsSync(path.join(bed.dataDir, 'tasks', refused.id))).toBe(false);
    const notices = await bed.call('listNotices', { status: 'open' });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ kind: 'variable_unreadable', title: 'Agent configuration incomplete', actionUrl: `#/agents/${agent.id}`, runIds: [refused.id] });

    // Something else about the agent changes: admission is asked again for the notice, and the variable is still locked.
    await bed.call('updateAgent', { agentId: agent.id, name: 'Deployer' });
    expect(await bed.call('listNotices', { status: 'open' })).toHaveLength(1);

    // The operator enters the value again: the next run reads it, and the notice says what fixed it.
    await bed.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'DEPLOY_TOKEN', secret: true, value: 'deploy-5f4e3d2c1b0a' }] });
    const later = await bed.waitForRun((await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(later.status).toBe('succeeded');
    expect(await bed.call('listNotices', { status: 'open' })).toEqual([]);
    const [resolved] = await bed.call('listNotices', { status: 'resolved' });
    expect(resolved).toMatchObject({ kind: 'variable_unreadable', resolution: 'A later run of Deployer was prepared: its variables could be read.' });
  });

  it('damaged (its vault known, its value not opening): found when the run is prepared, which fails before any attempt, with one notice all the same', async () => {
    const { bed } = await openConsole();
    const agent = await bed.createAgent(['--lines', '1']);
    await bed.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'DEPLOY_TOKEN', secret: true, value: 'deploy-5f4e3d2c1b0a' }] });
    bed.core.ledger.db.prepare("UPDATE layer_variables SET sealed_value = 'aes-256-gcm-key-file:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' WHERE name = 'DEPLOY_TOKEN'").run();
    const task = await bed.createTask('Deploy the preview');
    const failed = await bed.waitForRun((await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(failed.status).toBe('failed');
    expect(failed.attempts).toEqual([]);
    expect(failed.failure).toMatchObject({ code: 'configuration_incomplete', reason: 'variable_unreadable', actionUrl: `#/agents/${agent.id}` });
    expect(failed.failure?.message).toMatch(/^The secret value of DEPLOY_TOKEN \(an agent variable\) cannot be read: .+\. Enter it again\.$/);
    const notices = await bed.call('listNotices', { status: 'open' });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ kind: 'variable_unreadable', actionUrl: `#/agents/${agent.id}`, runIds: [failed.id] });
  });
});
