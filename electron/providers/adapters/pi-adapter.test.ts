import { describe, expect, it } from 'vitest';
import { catalog, launchRequest } from './launch-request.fixture';
import { createPiAdapter, guardPiMessage } from './pi-adapter';

const adapter = createPiAdapter(catalog.getProvider('pi'));
const profile = catalog.getProfile('pi', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';
const sessionDir = '/data/tasks/run_1/cache/pi-agent/sessions';

describe('pi adapter', () => {
  it('launches json print mode with a session file chosen before launch', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'anthropic/claude-sonnet-4-6'));
    expect(launch.executable).toBe('pi');
    expect(launch.args).toEqual([
      '--mode',
      'json',
      '-p',
      '--session-dir',
      sessionDir,
      '--session',
      `${sessionDir}/3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11.jsonl`,
      '--model',
      'anthropic/claude-sonnet-4-6',
      prompt,
    ]);
    expect(launch.env).toEqual({ PI_CODING_AGENT_DIR: '/data/tasks/run_1/cache/pi-agent', PI_OFFLINE: '1' });
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    // Known from the argv, so it can be persisted before the run is awaited.
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: sessionDir, source: 'argv' });
  });

  it('resumes by opening the same session file', () => {
    const launch = adapter.buildLaunch(
      launchRequest(profile, 'anthropic/claude-sonnet-4-6', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', sessionDir: '/saved/pi-sessions' },
      }),
    );
    expect(launch.args).toEqual([
      '--mode',
      'json',
      '-p',
      '--session-dir',
      '/saved/pi-sessions',
      '--session',
      '/saved/pi-sessions/3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11.jsonl',
      '--model',
      'anthropic/claude-sonnet-4-6',
      'Continue.',
    ]);
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: '/saved/pi-sessions', source: 'argv' });
  });

  it('resumes in the task cache when no session directory was recorded', () => {
    const launch = adapter.buildLaunch(
      launchRequest(profile, 'openai/gpt-5.5', { session: { mode: 'resume', sessionId: 'abc' } }),
    );
    expect(launch.args.slice(3, 7)).toEqual(['--session-dir', sessionDir, '--session', `${sessionDir}/abc.jsonl`]);
  });

  it('keeps a prompt that starts with a dash or @ from being read as a flag or a file', () => {
    expect(guardPiMessage('--version please')).toBe(' --version please');
    expect(guardPiMessage('@README.md summarise')).toBe(' @README.md summarise');
    expect(guardPiMessage('plain')).toBe('plain');
    const launch = adapter.buildLaunch(launchRequest(profile, 'openai/gpt-5.5', { prompt: '-x' }));
    expect(launch.args.at(-1)).toBe(' -x');
  });

  it('puts profile args before the prompt', () => {
    const launch = adapter.buildLaunch(launchRequest({ ...profile, args: ['--thinking', 'high'] }, 'openai/gpt-5.5'));
    expect(launch.args.slice(-3)).toEqual(['--thinking', 'high', prompt]);
  });
});
