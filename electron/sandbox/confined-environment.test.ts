import { describe, expect, it } from 'vitest';
import { buildConfinedEnvironment, consoleSetVariables, looksLikeCredential } from './confined-environment';

const taskRoot = {
  root: '/data/tasks/run_1',
  view: '/data/tasks/run_1/view',
  tmp: '/data/tasks/run_1/tmp',
  cache: '/data/tasks/run_1/cache',
  home: '/data/tasks/run_1/home',
};

const operatorEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'en_GB.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  TERM: 'screen-256color',
  USER: 'operator',
  LOGNAME: 'operator',
  SHELL: '/bin/zsh',
  TZ: 'Europe/Berlin',
  HOME: '/home/operator',
  EDITOR: 'vim',
  OPENAI_API_KEY: 'sk-planted',
  GITHUB_TOKEN: 'ghp_planted',
  AWS_SECRET_ACCESS_KEY: 'aws-planted',
  SSH_AUTH_SOCK: '/tmp/ssh-planted/agent.1',
  LC_AUTH_HELPER: 'planted-in-an-allowed-prefix',
  UNSET: undefined,
};

describe('buildConfinedEnvironment', () => {
  it('builds exactly the allow-listed operator variables plus the confinement variables', () => {
    const { env } = buildConfinedEnvironment({
      operatorEnv,
      taskRoot,
      providerHomeVar: { name: 'CODEX_HOME', value: '/data/tasks/run_1/cache/codex-home' },
      profileEnv: { FIXTURE: 'present' },
    });
    expect(env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'en_GB.UTF-8',
      LC_TIME: 'de_DE.UTF-8',
      TERM: 'screen-256color',
      COLORTERM: 'truecolor',
      USER: 'operator',
      LOGNAME: 'operator',
      SHELL: '/bin/zsh',
      TZ: 'Europe/Berlin',
      HOME: taskRoot.home,
      TMPDIR: taskRoot.tmp,
      TMP: taskRoot.tmp,
      TEMP: taskRoot.tmp,
      PWD: taskRoot.view,
      OPERATOR_CONSOLE_TASK_ROOT: taskRoot.root,
      CODEX_HOME: '/data/tasks/run_1/cache/codex-home',
      FIXTURE: 'present',
    });
  });

  it('never passes a credential-looking name or the ssh-agent socket, from the operator or the profile', () => {
    const { env, withheld } = buildConfinedEnvironment({
      operatorEnv,
      taskRoot,
      profileEnv: { ANTHROPIC_API_KEY: 'profile-planted', DB_PASSWORD: 'pw', MY_Secret_Thing: 'x', SSH_AUTH_SOCK: '/tmp/x', OK: '1' },
      extra: { SERVICE_TOKEN: 'extra-planted' },
    });
    const values = Object.values(env).join('\n');
    for (const planted of ['sk-planted', 'ghp_planted', 'aws-planted', 'profile-planted', 'extra-planted', 'ssh-planted', 'pw']) {
      expect(values).not.toContain(planted);
    }
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
    expect(env.LC_AUTH_HELPER).toBeUndefined();
    expect(env.OK).toBe('1');
    expect(withheld).toEqual(
      expect.arrayContaining([
        { name: 'LC_AUTH_HELPER', source: 'operator', reason: 'credential' },
        { name: 'ANTHROPIC_API_KEY', source: 'profile', reason: 'credential' },
        { name: 'DB_PASSWORD', source: 'profile', reason: 'credential' },
        { name: 'MY_Secret_Thing', source: 'profile', reason: 'credential' },
        { name: 'SSH_AUTH_SOCK', source: 'profile', reason: 'ssh-agent' },
        { name: 'SERVICE_TOKEN', source: 'extra', reason: 'credential' },
      ]),
    );
  });

  it('passes credentials only through deliveredSecrets, and never the ssh-agent socket', () => {
    const { env, withheld } = buildConfinedEnvironment({
      operatorEnv,
      taskRoot,
      profileEnv: {},
      deliveredSecrets: { OPENAI_API_KEY: 'sk-managed-connection', SSH_AUTH_SOCK: '/tmp/delivered' },
    });
    expect(env.OPENAI_API_KEY).toBe('sk-managed-connection');
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
    expect(withheld).toContainEqual({ name: 'SSH_AUTH_SOCK', source: 'delivered', reason: 'ssh-agent' });
  });

  it('keeps the confinement variables whatever the profile, extra or delivered entries say', () => {
    const { env, withheld } = buildConfinedEnvironment({
      operatorEnv,
      taskRoot,
      providerHomeVar: { name: 'CLAUDE_CONFIG_DIR', value: '/data/tasks/run_1/cache/claude-config' },
      profileEnv: { HOME: '/home/operator', TMPDIR: '/tmp', CLAUDE_CONFIG_DIR: '/home/operator/.claude', CODEX_HOME: '/home/operator/.codex' },
      extra: { PWD: '/' },
      deliveredSecrets: { OPERATOR_CONSOLE_TASK_ROOT: '/' },
    });
    expect(env.HOME).toBe(taskRoot.home);
    expect(env.TMPDIR).toBe(taskRoot.tmp);
    expect(env.PWD).toBe(taskRoot.view);
    expect(env.OPERATOR_CONSOLE_TASK_ROOT).toBe(taskRoot.root);
    expect(env.CLAUDE_CONFIG_DIR).toBe('/data/tasks/run_1/cache/claude-config');
    expect(env.CODEX_HOME).toBeUndefined();
    expect(withheld.filter((entry) => entry.reason === 'reserved').map((entry) => entry.name).sort()).toEqual(
      ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'HOME', 'OPERATOR_CONSOLE_TASK_ROOT', 'PWD', 'TMPDIR'].sort(),
    );
  });

  it('lets the profile set ordinary variables and the terminal, with xterm defaults otherwise', () => {
    const { env } = buildConfinedEnvironment({
      operatorEnv: { PATH: '/bin' },
      taskRoot,
      profileEnv: { TERM: 'dumb', GIT_AUTHOR_NAME: 'Agent', GIT_AUTHOR_EMAIL: 'agent@example.invalid' },
    });
    expect(env.TERM).toBe('dumb');
    expect(env.COLORTERM).toBe('truecolor');
    expect(env.GIT_AUTHOR_NAME).toBe('Agent');
    expect(env.GIT_AUTHOR_EMAIL).toBe('agent@example.invalid');
    const bare = buildConfinedEnvironment({ operatorEnv: {}, taskRoot, profileEnv: {} }).env;
    expect(bare.TERM).toBe('xterm-256color');
    expect(bare.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
  });

  it('refuses a provider home variable outside the task cache', () => {
    expect(() =>
      buildConfinedEnvironment({
        operatorEnv,
        taskRoot,
        providerHomeVar: { name: 'CODEX_HOME', value: '/home/operator/.codex' },
        profileEnv: {},
      }),
    ).toThrow(/inside the task's cache/);
  });
});

describe('credential names', () => {
  it('recognises credential names by substring, case-insensitively', () => {
    for (const name of ['OPENAI_API_KEY', 'github_token', 'Client_Secret', 'PGPASSWORD', 'HTTP_AUTH', 'GOOGLE_APPLICATION_CREDENTIALS']) {
      expect(looksLikeCredential(name), name).toBe(true);
    }
    for (const name of ['PATH', 'LANG', 'GIT_AUTHOR_NAME', 'EDITOR']) expect(looksLikeCredential(name), name).toBe(false);
  });
});

describe('the variables the console sets itself', () => {
  it('are derived from where each is set: confinement, CLI homes, the proxy, delivery, the ssh-agent socket', () => {
    const set = new Map(consoleSetVariables().map((variable) => [variable.name, variable.setBy]));
    expect(set.get('HOME')).toBe('the run’s home folder');
    expect(set.get('TMPDIR')).toBe('the run’s temporary folder');
    expect(set.get('PWD')).toBe('the run’s working folder (its view)');
    expect(set.get('OPERATOR_CONSOLE_TASK_ROOT')).toBe('the run’s task root');
    for (const name of ['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'PI_CODING_AGENT_DIR', 'GEMINI_CLI_HOME']) expect(set.get(name), name).toMatch(/home folder/);
    for (const name of ['HTTPS_PROXY', 'http_proxy', 'NO_PROXY']) expect(set.get(name), name).toBe('the run’s egress proxy');
    for (const name of ['OPENAI_API_KEY', 'CODEX_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'GEMINI_API_KEY', 'OPERATOR_CONSOLE_API_KEY', 'OPENAI_BASE_URL']) {
      expect(set.get(name), name).toBe('an AI connection’s delivery');
    }
    expect(set.has('SSH_AUTH_SOCK')).toBe(true);
    expect(set.has('ELECTRON_RUN_AS_NODE')).toBe(true);
    // Ordinary variables a project needs are not the console's.
    for (const name of ['PATH', 'NODE_ENV', 'DATABASE_URL', 'NPM_TOKEN']) expect(set.has(name), name).toBe(false);
  });

  it('are never taken from the variable layers, which otherwise pass even credential-like names', () => {
    const { env, withheld } = buildConfinedEnvironment({
      operatorEnv,
      taskRoot,
      profileEnv: { NODE_ENV: 'profile', FROM_PROFILE: '1' },
      layerVariables: { NODE_ENV: 'test', NPM_TOKEN: 'npm-layer-token', HOME: '/home/operator', HTTPS_PROXY: 'http://evil:1', OPENAI_API_KEY: 'sk-layer' },
    });
    expect(env).toMatchObject({ NODE_ENV: 'test', NPM_TOKEN: 'npm-layer-token', FROM_PROFILE: '1', HOME: taskRoot.home });
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(withheld.filter((entry) => entry.source === 'layers')).toEqual([
      { name: 'HOME', source: 'layers', reason: 'reserved' },
      { name: 'HTTPS_PROXY', source: 'layers', reason: 'reserved' },
      { name: 'OPENAI_API_KEY', source: 'layers', reason: 'reserved' },
    ]);
  });
});
