import { describe, expect, it } from 'vitest';
import { deliver, key } from '../delivery.fixture';
import { catalog, launchFor, launchRequest } from '../launch-request.fixture';
import { commandDefinition } from './definition';

const command = launchFor('command');
const shell = catalog.getProfile('command', 'shell');

describe('command launch', () => {
  it("runs the profile executable with its template filled in: the shell runs the task's own prompt", () => {
    const launch = command.build(launchRequest(shell, '', { prompt: 'Task: framing the worker prompt adds' }));
    expect(launch).toEqual({
      executable: '/bin/sh',
      args: ['-c', 'Make test X deterministic.'],
      env: {},
      cwd: '/data/tasks/run_1/view',
      session: null,
    });
  });

  it('substitutes every placeholder into single argv entries, braces escaped with doubling', () => {
    const profile = {
      ...shell,
      executable: '/usr/local/bin/my-agent',
      argsTemplate: [
        '--cwd={cwd}',
        '--model',
        '{model}',
        '--root',
        '{taskRoot}',
        '{tmp}:{cache}:{home}',
        '--title',
        '{title}',
        '--plan={planPath}',
        '--review={reviewPath}',
        '{{literal}}',
        '{prompt}',
      ],
      args: ['--verbose'],
      env: { MY_AGENT_MODE: 'headless' },
    };
    const launch = command.build(
      launchRequest(profile, 'local-llama', {
        task: { title: 'Fix it', prompt: 'p', planPath: 'agent-task/m/1/PLAN-a.md', reviewPath: null },
        prompt: 'two words; $(not a shell)',
      }),
    );
    expect(launch.executable).toBe('/usr/local/bin/my-agent');
    expect(launch.args).toEqual([
      '--cwd=/data/tasks/run_1/view',
      '--model',
      'local-llama',
      '--root',
      '/data/tasks/run_1',
      '/data/tasks/run_1/tmp:/data/tasks/run_1/cache:/data/tasks/run_1/home',
      '--title',
      'Fix it',
      '--plan=agent-task/m/1/PLAN-a.md',
      '--review=',
      '{literal}',
      'two words; $(not a shell)',
      '--verbose',
    ]);
    expect(launch.env).toEqual({ MY_AGENT_MODE: 'headless' });
  });

  it('refuses an unknown placeholder in a hand-built profile', () => {
    expect(() => command.build(launchRequest({ ...shell, argsTemplate: ['{secret}'] }, ''))).toThrow(
      expect.objectContaining({ code: 'configuration_incomplete', reason: 'placeholder_unknown' }),
    );
  });

  it('has no sessions: it cannot resume', () => {
    expect(command.provider.definition.launch.resumable).toBe(false);
    expect(() => command.build(launchRequest(shell, '', { session: { mode: 'resume', sessionId: 'x' } }))).toThrow(
      expect.objectContaining({ code: 'configuration_incomplete', reason: 'session_resume_unsupported' }),
    );
  });
});

describe('command delivery', () => {
  it('a command of the operator’s own: the variables its provider’s SDKs read', () => {
    const delivery = deliver(commandDefinition, { provider: 'custom', method: 'api_key', baseUrl: 'http://127.0.0.1:1/v1' });
    expect(delivery).toMatchObject({ secretEnv: { OPENAI_API_KEY: key }, plainEnv: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, files: [] });
  });
});
