import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OperatorError } from '../../../shared/errors';
import { probeSandbox, type SandboxProbe } from '../../sandbox/sandbox-probe';
import { prepareTaskRoot } from '../../task-root/task-root';
import type { TaskRoot } from '../../task-root/task-root-layout';
import { makeOperatorFixture, type OperatorFixture } from '../../sandbox/test-fixtures';
import { loadProviderCatalog } from '../../providers/catalog';
import type { Admission } from '../admission';
import { confineLaunch, egressAllowList, type ConfineLaunchInput } from './attempt-confinement';

/**
 * What a launch turns into for each sandbox the probe can report. Seatbelt cannot run here (it is
 * macOS's), so its launch is checked as argv and profile: the same code path a Mac takes when the
 * probe says `seatbelt`.
 */

let fixture: OperatorFixture;
let taskRoot: TaskRoot;
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  fixture = makeOperatorFixture('oc-launch-');
  taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_launch', project: { path: fixture.project, isGitRepo: true } });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  fixture.cleanup();
});

const catalog = loadProviderCatalog();
const codex = catalog.findProvider('codex')!;

function admission(overrides: Partial<Admission> = {}): Admission {
  return {
    version: 3,
    agentId: 'agt_1',
    agentName: 'Codex',
    providerId: 'codex',
    model: 'gpt-5.5',
    profileId: codex.profiles[0]!.id,
    profileRevision: 'r1',
    environmentId: 'env_sandboxed',
    environmentKind: 'sandboxed',
    networkMode: 'provider-only',
    allowedHosts: [],
    homeMode: 'isolated',
    connectionId: 'con_1',
    connectionRequired: true,
    connection: { id: 'con_1', name: 'Managed', provider: 'openai', method: 'api_key', baseUrl: null },
    admittedAt: new Date().toISOString(),
    ...overrides,
  };
}

async function launch(sandbox: SandboxProbe | null, overrides: Partial<ConfineLaunchInput> = {}) {
  const confined = await confineLaunch({
    spec: { executable: '/bin/sh', args: ['-c', 'true'], env: {}, cwd: taskRoot.view, session: null },
    taskRoot,
    provider: codex,
    profile: codex.profiles[0]!,
    admission: admission(),
    operatorEnv: { PATH: '/usr/bin:/bin' },
    operatorHome: fixture.home,
    dataDir: fixture.dataDir,
    sandbox,
    credential: {
      secretEnv: { CODEX_API_KEY: 'sk-managed' },
      plainEnv: {},
      files: [{ relativePath: 'auth.json', content: '{"OPENAI_API_KEY":"sk-managed"}' }],
    },
    ...overrides,
  });
  cleanups.push(() => confined.cleanup());
  return confined;
}

const seatbelt: SandboxProbe = { available: true, level: 'seatbelt', setup: null };

describe('egressAllowList', () => {
  it('is the model’s API (the connection’s base URL instead, when it has one) and the allowed hosts the admission recorded', () => {
    const recorded = admission({ allowedHosts: ['registry.npmjs.org', '127.0.0.1:4873', '*.internal.example'] });
    expect(egressAllowList({ provider: codex, admission: recorded, connectionBaseUrl: null })).toEqual([
      { host: 'api.openai.com', port: 443 },
      { host: 'registry.npmjs.org', port: 443 },
      { host: '127.0.0.1', port: 4873 },
      { host: '*.internal.example', port: 443 },
    ]);
    expect(egressAllowList({ provider: codex, admission: admission(), connectionBaseUrl: 'http://127.0.0.1:11434/v1' })).toEqual([{ host: '127.0.0.1', port: 11434 }]);
  });
});

describe('confineLaunch', () => {
  it('on macOS runs the CLI through sandbox-exec with the generated profile, the proxy on a port of localhost', async () => {
    const confined = await launch(seatbelt);
    expect(confined.sandbox).toBe('seatbelt');
    expect(confined.executable).toBe('/usr/bin/sandbox-exec');
    expect(confined.args[0]).toBe('-p');
    expect(confined.args.slice(2)).toEqual(['--', '/bin/sh', '-c', 'true']);
    const profile = confined.args[1]!;
    const root = realpathSync(taskRoot.root);
    const home = path.join(root, 'cache', 'codex-home');
    // Deny by default; write only the writable roots, minus what the console owns in them.
    expect(profile.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    for (const writable of ['view', 'tmp', 'cache', 'home', 'git']) expect(profile).toContain(`(subpath "${path.join(root, writable)}")`);
    for (const file of [path.join(root, 'git', 'config'), path.join(root, 'view', '.git'), path.join(home, 'auth.json'), home]) {
      expect(profile).toContain(`(require-not (literal "${file}"))`);
    }
    expect(profile).toContain(`(require-not (subpath "${path.join(root, 'git', 'hooks')}"))`);
    // Hidden: the home and the data directory (and the project), read back only the project's objects.
    expect(profile).toContain(`(require-not (subpath "${fixture.home}"))`);
    expect(profile).toContain(`(require-not (subpath "${fixture.dataDir}"))`);
    expect(profile).toContain(`(subpath "${path.join(fixture.project, '.git', 'objects')}")`);
    // provider-only: the only address the run may connect to is the egress proxy's port.
    const port = Number(/localhost:(\d+)/.exec(profile)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(confined.env.HTTPS_PROXY).toBe(`http://127.0.0.1:${port}`);
    expect(confined.env.NO_PROXY).toBe('');
    // No mount namespace: the key is written where the CLI reads it (0600), and the profile forbids changing it.
    expect(statSync(path.join(home, 'auth.json')).mode & 0o777).toBe(0o600);
    await confined.cleanup();
    expect(existsSync(path.join(home, 'auth.json'))).toBe(false);
  });

  it('on Linux runs the CLI in bubblewrap as the probe found it: the seccomp filter through fd 3, and nobody when the console is root', async () => {
    const probe = await probeSandbox({ stateDir: path.join(fixture.base, 'sandbox-state'), operatorHome: fixture.home });
    const confined = await launch(probe);
    expect(confined.sandbox).toBe('bubblewrap');
    expect(confined.executable).toBe('/bin/sh');
    expect(confined.args.slice(0, 3)).toEqual(['-c', 'exec "$@" 3<"$0"', probe.setup!.seccompFile]);
    expect(confined.args).toEqual(expect.arrayContaining(['--seccomp', '3', '--die-with-parent']));
    if (probe.setup!.user) expect(confined.args).toEqual(expect.arrayContaining(['/usr/bin/setpriv', '--reuid=65534']));
    // The key stays in the console's folder: in the home there is only the empty file it is bound over.
    const delivered = path.join(realpathSync(taskRoot.root), 'delivered', 'auth.json');
    expect(readFileSync(delivered, 'utf8')).toContain('sk-managed');
    expect(readFileSync(path.join(taskRoot.cache, 'codex-home', 'auth.json'), 'utf8')).toBe('');
  });

  it('refuses a sandboxed launch where the probe found no sandbox, before writing any credential', async () => {
    const none: SandboxProbe = { available: false, level: 'none', reason: 'bwrap was not found.', hint: 'Install bubblewrap.', setup: null };
    const failure = await launch(none).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OperatorError);
    expect((failure as OperatorError).code).toBe('sandbox_unavailable');
    expect((failure as OperatorError).message).toContain('bwrap was not found.');
    expect(existsSync(path.join(taskRoot.root, 'delivered'))).toBe(false);
    expect(existsSync(path.join(taskRoot.cache, 'codex-home', 'auth.json'))).toBe(false);
  });

  it('runs a local launch without a sandbox, the key written into its home through real folders only', async () => {
    const confined = await launch(null, { admission: admission({ environmentKind: 'local', environmentId: 'env_local' }) });
    expect(confined).toMatchObject({ sandbox: 'none', executable: '/bin/sh', args: ['-c', 'true'] });
    expect(readFileSync(path.join(taskRoot.cache, 'codex-home', 'auth.json'), 'utf8')).toContain('sk-managed');
  });
});
