import { describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { catalog, launchRequest } from './launch-request.fixture';

const provider = catalog.getProvider('codex');
const adapter = createCodexAdapter(provider);
const profile = catalog.getProfile('codex', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('codex adapter', () => {
  it('launches `codex exec --json` in the view with the console sandbox bypassing its own', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gpt-6.2-sol', { environmentKind: 'sandboxed' }));
    expect(launch.executable).toBe('codex');
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-6.2-sol',
      '--',
      prompt,
    ]);
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.env).toEqual({ CODEX_HOME: '/data/tasks/run_1/cache/codex-home' });
  });

  it("keeps Codex's own workspace-write sandbox when the run is not OS-sandboxed", () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gpt-5.5'));
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '--model',
      'gpt-5.5',
      '--',
      prompt,
    ]);
  });

  it('learns the thread id from the stream, and knows where rollouts are kept', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gpt-6.2-sol', { session: { mode: 'new' } }));
    expect(launch.session).toEqual({ id: null, dir: '/data/tasks/run_1/cache/codex-home/sessions', source: 'stream' });
  });

  it('resumes with `exec ... resume <thread_id> -- <prompt>`, options before the subcommand', () => {
    const launch = adapter.buildLaunch(
      launchRequest(profile, 'gpt-6.2-sol', {
        environmentKind: 'sandboxed',
        prompt: 'Continue where you stopped.',
        session: { mode: 'resume', sessionId: '01a228be-81c0-72d0-8b00-72f53bfa6709' },
      }),
    );
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-6.2-sol',
      'resume',
      '01a228be-81c0-72d0-8b00-72f53bfa6709',
      '--',
      'Continue where you stopped.',
    ]);
    expect(launch.session).toEqual({
      id: '01a228be-81c0-72d0-8b00-72f53bfa6709',
      dir: '/data/tasks/run_1/cache/codex-home/sessions',
      source: 'argv',
    });
  });

  it('puts profile args after the model, and lets a profile choose the sandbox policy', () => {
    const launch = adapter.buildLaunch(
      launchRequest({ ...profile, args: ['--sandbox', 'read-only', '-c', 'model_reasoning_effort="high"'] }, 'gpt-6.2-sol', {
        environmentKind: 'sandboxed',
      }),
    );
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--model',
      'gpt-6.2-sol',
      '--sandbox',
      'read-only',
      '-c',
      'model_reasoning_effort="high"',
      '--',
      prompt,
    ]);
  });

  it('keeps a prompt that starts with a dash a prompt', () => {
    const launch = adapter.buildLaunch(launchRequest(profile, 'gpt-6.2-sol', { prompt: '--help me' }));
    expect(launch.args.slice(-2)).toEqual(['--', '--help me']);
  });

  it('has no session to resume for an ephemeral profile', () => {
    const launch = adapter.buildLaunch(launchRequest(catalog.getProfile('codex', 'ephemeral'), 'gpt-6.2-sol'));
    expect(launch.args).toContain('--ephemeral');
    expect(launch.session).toBeNull();
  });

  it('adds the profile env after the provider home', () => {
    const launch = adapter.buildLaunch(launchRequest({ ...profile, env: { RUST_LOG: 'warn' } }, 'gpt-6.2-sol'));
    expect(launch.env).toEqual({ CODEX_HOME: '/data/tasks/run_1/cache/codex-home', RUST_LOG: 'warn' });
  });

  it('refuses to resume without a thread id', () => {
    expect(() => adapter.buildLaunch(launchRequest(profile, 'gpt-6.2-sol', { session: { mode: 'resume', sessionId: '' } }))).toThrow(
      expect.objectContaining({ code: 'invalid_request', reason: 'session_id_missing' }),
    );
  });
});
