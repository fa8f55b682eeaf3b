import { describe, expect, it } from 'vitest';
import { createClaudeCodeAdapter } from './claude-code-adapter';
import { catalog, launchRequest } from './launch-request.fixture';

const adapter = createClaudeCodeAdapter(catalog.getProvider('claude-code'));
const profile = catalog.getProfile('claude-code', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('claude code adapter', () => {
  it('launches print mode with stream-json, a session id chosen up front and acceptEdits', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'claude-sonnet-4-6'));
    expect(launch.executable).toBe('claude');
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-sonnet-4-6',
      '--permission-mode',
      'acceptEdits',
      '--',
      prompt,
    ]);
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.env).toEqual({
      CLAUDE_CONFIG_DIR: '/data/tasks/run_1/cache/claude-config',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    expect(launch.session).toEqual({
      id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      dir: '/data/tasks/run_1/cache/claude-config/projects',
      source: 'argv',
    });
  });

  it('draws a fresh UUID per launch when no id source is given', () => {
    const request = launchRequest(profile, 'claude-sonnet-4-6', { newSessionId: undefined });
    const first = adapter.buildLaunch(request).session?.id;
    const second = adapter.buildLaunch(request).session?.id;
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });

  it('resumes with --resume <uuid>', () => {
    const launch = adapter.buildLaunch(
      launchRequest(profile, 'claude-sonnet-4-6', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', sessionDir: '/saved/projects' },
      }),
    );
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-sonnet-4-6',
      '--permission-mode',
      'acceptEdits',
      '--',
      'Continue.',
    ]);
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: '/saved/projects', source: 'argv' });
  });

  it("lets a profile choose the permission mode instead of the adapter's", () => {
    const bypass = catalog.getProfile('claude-code', 'bypass-permissions');
    const launch = adapter.buildLaunch(launchRequest(bypass, 'claude-opus-4-8'));
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-opus-4-8',
      '--permission-mode',
      'bypassPermissions',
      '--',
      prompt,
    ]);
    // Claude refuses to skip permissions as root unless told it is in a sandbox.
    expect(launch.env.IS_SANDBOX).toBe('1');
  });

  it('ends the options before the prompt so variadic profile flags cannot swallow it', () => {
    const launch = adapter.buildLaunch(launchRequest({ ...profile, args: ['--allowedTools', 'Bash(npm test)', 'Edit'] }, 'claude-sonnet-4-6'));
    expect(launch.args.slice(-5)).toEqual(['--allowedTools', 'Bash(npm test)', 'Edit', '--', prompt]);
  });
});
