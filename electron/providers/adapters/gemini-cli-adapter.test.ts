import { describe, expect, it } from 'vitest';
import { createGeminiCliAdapter } from './gemini-cli-adapter';
import { catalog, launchRequest } from './launch-request.fixture';

const adapter = createGeminiCliAdapter(catalog.getProvider('gemini-cli'));
const profile = catalog.getProfile('gemini-cli', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('gemini cli adapter', () => {
  it('launches headless stream-json with a session id chosen up front, trust skipped and yolo', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gemini-2.5-pro'));
    expect(launch.executable).toBe('gemini');
    expect(launch.args).toEqual([
      `--prompt=${prompt}`,
      '-o',
      'stream-json',
      '--model',
      'gemini-2.5-pro',
      '--skip-trust',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--approval-mode',
      'yolo',
    ]);
    expect(launch.env).toEqual({ GEMINI_CLI_HOME: '/data/tasks/run_1/cache/gemini-home' });
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.session).toEqual({
      id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      dir: '/data/tasks/run_1/cache/gemini-home/.gemini/tmp',
      source: 'argv',
    });
  });

  it('resumes with --resume <uuid> (a --session-id that exists is refused by the CLI)', () => {
    const launch = adapter.buildLaunch(
      launchRequest(profile, 'gemini-2.5-pro', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f' },
      }),
    );
    expect(launch.args).toEqual([
      '--prompt=Continue.',
      '-o',
      'stream-json',
      '--model',
      'gemini-2.5-pro',
      '--skip-trust',
      '--resume',
      '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      '--approval-mode',
      'yolo',
    ]);
    expect(launch.session?.id).toBe('7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f');
  });

  it('passes a prompt that starts with a dash as the prompt value', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gemini-2.5-pro', { prompt: '-x dash prompt' }));
    expect(launch.args[0]).toBe('--prompt=-x dash prompt');
  });

  it('lets a profile choose the approval mode', () => {
    const launch = adapter.buildLaunch(launchRequest(catalog.getProfile('gemini-cli', 'auto-edit'), 'gemini-3-pro-preview'));
    expect(launch.args.slice(-2)).toEqual(['--approval-mode', 'auto_edit']);
    expect(launch.args.filter((arg) => arg === '--approval-mode')).toHaveLength(1);
  });
});
