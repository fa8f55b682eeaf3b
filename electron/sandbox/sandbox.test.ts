import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArgs, bwrapCommand, readOnlyRebindsFor, type NetworkMode, type SandboxSetup } from './bwrap';
import { loopbackForwards } from './egress-allow-list';
import { egressSocketPath, startEgressProxy, type EgressDecision } from './egress-proxy';
import { chooseRelayPort, egressProxyEnvironment, egressRelayCommand, findEgressRelayScript } from './egress-relay';
import { codexDefinition } from '../providers/codex/definition';
import { buildConfinedEnvironment } from './confined-environment';
import { prepareProviderHome } from '../task-root/provider-home';
import { probeSandbox } from './sandbox-probe';
import { prepareTaskRoot } from '../task-root/task-root';
import type { TaskRoot } from '../task-root/task-root-layout';
import { prepareTaskRootMounts, type TaskRootMounts } from '../task-root/task-root-mounts';
import { diffTaskView } from '../task-root/task-view-diff';
import {
  fixtureTools,
  git,
  makeOperatorFixture,
  otherProjectSecret,
  pidsWithMarker,
  plantedAwsSecret,
  plantedSshKey,
  runCommand,
  waitFor,
  type OperatorFixture,
} from './test-fixtures';

/**
 * The guarantees of DESIGN.md section 4, tried from inside a real bubblewrap sandbox built the way a
 * sandboxed run is: the operator's home (with planted secrets) holds the project, another project
 * and the console's data directory, as on a Linux desktop.
 */

const node = process.execPath;
const runId = 'run_sandbox';

describe.skipIf(process.platform !== 'linux')('the bubblewrap sandbox', () => {
  let fixture: OperatorFixture;
  let taskRoot: TaskRoot;
  let mounts: TaskRootMounts;
  let setup: SandboxSetup;
  const cleanups: Array<() => void | Promise<void>> = [];

  beforeAll(async () => {
    fixture = makeOperatorFixture('oc-sandbox-');
    const probe = await probeSandbox({ stateDir: path.join(fixture.base, 'sandbox-state'), operatorHome: fixture.home });
    // Not a skip: on Linux the sandbox is part of the product, and a broken probe must fail loudly.
    expect(probe, probe.reason).toMatchObject({ available: true, level: 'bubblewrap' });
    setup = probe.setup!;
    taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: { path: fixture.project, isGitRepo: true }, owner: setup.user });
    mounts = await prepareTaskRootMounts(taskRoot, setup.user);
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  afterAll(() => fixture?.cleanup());

  function operatorEnv(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      USER: 'operator',
      HOME: fixture.home,
      OPENAI_API_KEY: 'sk-planted',
      GITHUB_TOKEN: 'ghp_planted',
      AWS_SECRET_ACCESS_KEY: plantedAwsSecret,
      SSH_AUTH_SOCK: '/tmp/ssh-planted/agent.1',
      // A secret whose name does not look like one: only the allow-list keeps it out.
      DATABASE_URL: 'postgres://operator:db-planted@127.0.0.1/prod',
      EDITOR: 'vim',
    };
  }

  function confinedEnv(extra?: Record<string, string>, root: TaskRoot = taskRoot): Record<string, string> {
    return buildConfinedEnvironment({
      operatorEnv: operatorEnv(),
      taskRoot: root,
      providerHomeVar: { name: codexDefinition.home.variable, value: path.join(root.cache, codexDefinition.home.folder) },
      profileEnv: { FIXTURE: 'present' },
      ...(extra ? { extra } : {}),
    }).env;
  }

  interface SandboxOptions {
    operatorHome?: string;
    /**
     * As a console run by the operator (not root): the sandbox is the operator, in a user namespace,
     * in a task root of its own (the shared one belongs to nobody when the suite runs as root).
     */
    asOperator?: { taskRoot: TaskRoot; mounts: TaskRootMounts };
    networkMode?: NetworkMode;
    proxySocket?: string;
    readOnlyRebinds?: string[];
    extraEnv?: Record<string, string>;
  }

  /** The sandbox a run gets, exactly as the launch builds it (bwrap.ts), as a command to spawn. */
  function sandboxCommand(command: string[], options: SandboxOptions = {}): { file: string; args: string[] } {
    const root = options.asOperator ?? { taskRoot, mounts };
    const args = buildBwrapArgs(
      {
        taskRoot: root.taskRoot,
        writableRoots: root.mounts.writableRoots,
        networkMode: options.networkMode ?? 'none',
        operatorHome: options.operatorHome ?? fixture.home,
        // The relay script lives in this checkout, which may itself sit in a folder the sandbox hides
        // (a CI clone under /tmp): the console re-binds it the same way (runs/attempt/attempt-confinement.ts).
        readOnlyRebinds: [
          ...(options.readOnlyRebinds ?? []),
          ...root.mounts.readOnlyRebinds,
          ...(options.proxySocket ? [path.dirname(findEgressRelayScript())] : []),
        ],
        hiddenPaths: [taskRoot.projectPath, fixture.dataDir],
        overlays: root.mounts.overlays,
        ...(options.proxySocket ? { proxySocket: options.proxySocket } : {}),
        command,
      },
      options.asOperator ? { ...setup, user: null } : setup,
    );
    return bwrapCommand(args, setup);
  }

  function sandbox(command: string[], options: SandboxOptions = {}) {
    const { file, args } = sandboxCommand(command, options);
    return runCommand(file, args, confinedEnv(options.extraEnv, options.asOperator?.taskRoot));
  }

  function sh(script: string, options: SandboxOptions = {}) {
    return sandbox(['/bin/sh', '-c', script], options);
  }

  async function hostListener(): Promise<number> {
    const server = net.createServer((socket) => socket.end('host-listener\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return (server.address() as net.AddressInfo).port;
  }

  async function hostHttpServer(body: string): Promise<number> {
    const server = http.createServer((_request, response) => response.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return (server.address() as net.AddressInfo).port;
  }

  // A tiny TCP client run by Node inside the sandbox: prints CONNECTED <data> or FAILED <code>.
  const connectScript = (port: number) =>
    `const s=require('net').connect(${port},'127.0.0.1');let d='';` +
    `s.on('data',c=>d+=c);s.on('end',()=>{console.log('CONNECTED '+d.trim())});` +
    `s.on('error',e=>console.log('FAILED '+e.code));s.setTimeout(3000,()=>{console.log('FAILED timeout');s.destroy()});`;

  it("hides the operator's home: planted secrets and another project cannot be read", async () => {
    const targets = [
      path.join(fixture.home, '.ssh', 'id_rsa'),
      path.join(fixture.home, '.aws', 'credentials'),
      path.join(fixture.otherProject, 'secret.txt'),
      path.join(fixture.project, 'README.md'),
    ];
    const result = await sh(
      `for f in ${targets.map((t) => `'${t}'`).join(' ')}; do if cat "$f" 2>/dev/null; then echo "READABLE $f"; else echo "HIDDEN $f"; fi; done; ` +
        `cat README.md >/dev/null && echo VIEW-READABLE; ls -A '${fixture.home}'`,
    );
    expect(result.stderr).toBe('');
    for (const target of targets) expect(result.stdout).toContain(`HIDDEN ${target}`);
    expect(result.stdout).not.toContain('READABLE /');
    expect(result.stdout).not.toContain(plantedSshKey);
    expect(result.stdout).not.toContain(plantedAwsSecret);
    expect(result.stdout).not.toContain(otherProjectSecret);
    expect(result.stdout).toContain('VIEW-READABLE');
    // Only the folders leading to the bound task root and git directory exist in the hidden home.
    const homeListing = result.stdout.split('\n').filter((line) => line && !/^(HIDDEN|VIEW-)/.test(line));
    expect(homeListing.sort()).toEqual(['.local', 'src']);
  });

  it('hides a home that is reached through a symbolic link', async () => {
    const linkedHome = path.join(fixture.base, 'home-link');
    symlinkSync(fixture.home, linkedHome);
    const result = await sh(`cat '${linkedHome}/.ssh/id_rsa' 2>/dev/null || echo HIDDEN; cat README.md >/dev/null && echo VIEW-READABLE`, {
      operatorHome: linkedHome,
    });
    expect(result.stdout.trim().split('\n')).toEqual(['HIDDEN', 'VIEW-READABLE']);
  });

  it('does not let root inside the sandbox unmount the tmpfs over the home', async () => {
    const result = await sh(`umount '${fixture.home}' 2>/dev/null; umount -l '${fixture.home}' 2>/dev/null; cat '${fixture.home}/.ssh/id_rsa' 2>&1; echo done`);
    expect(result.stdout).toContain('done');
    expect(result.stdout).not.toContain(plantedSshKey);
  });

  it("keeps /proc/sys read-only, also for a sandbox whose user owns it (root in its user namespace, when the console is root)", async () => {
    const ownRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_sysctl', project: { path: fixture.project, isGitRepo: true } });
    const asOperator = { taskRoot: ownRoot, mounts: await prepareTaskRootMounts(ownRoot, null) };
    const value = readFileSync('/proc/sys/vm/swappiness', 'utf8').trim();
    // Writes the value it already has: should the guarantee break, the host's setting stays as it was.
    const result = await sh(`id -u; (echo ${value} > /proc/sys/vm/swappiness) 2>/dev/null && echo WROTE-SYSCTL || echo REFUSED`, { asOperator });
    expect(result.stdout.trim().split('\n')).toEqual([String(process.getuid?.()), 'REFUSED']);
  });

  it('leaves the command no capability in any of the five sets, and no_new_privs set, as root and as the operator', async () => {
    const script = `id -u; grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status`;
    const everySetEmpty = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'].map((set) => `${set}:\t0000000000000000`);
    // As the console runs it here (nobody through setpriv when the suite is root).
    const asConsole = await sh(script);
    expect(asConsole.stdout.trim().split('\n')).toEqual([String(setup.user?.uid ?? process.getuid?.()), ...everySetEmpty, 'NoNewPrivs:\t1']);
    // As a console run by the operator: bubblewrap in a user namespace of its own.
    const ownRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_capabilities', project: { path: fixture.project, isGitRepo: true } });
    const asOperator = await sh(script, { asOperator: { taskRoot: ownRoot, mounts: await prepareTaskRootMounts(ownRoot, null) } });
    expect(asOperator.stdout.trim().split('\n')).toEqual([String(process.getuid?.()), ...everySetEmpty, 'NoNewPrivs:\t1']);
  });

  it("refuses writes to the operator's home, /etc, the project (its files and its whole repository), and the run's git repository's config, hooks and links", async () => {
    const { gitDir, adminDir } = taskRoot.repository!;
    const projectGit = path.join(fixture.project, '.git');
    const protectedFiles = [path.join(gitDir, 'config'), path.join(adminDir, 'commondir'), path.join(adminDir, 'gitdir'), path.join(taskRoot.view, '.git')];
    const before = new Map(protectedFiles.map((file) => [file, readFileSync(file, 'utf8')]));
    const projectConfigBefore = readFileSync(path.join(projectGit, 'config'), 'utf8');
    const mainBefore = git(fixture.project, 'rev-parse', 'main');
    // Unique, and removed afterwards should the guarantee ever break and the write land on the host.
    const etcTarget = `/etc/operator-console-planted-${randomInt(1e9)}`;
    cleanups.push(() => rmSync(etcTarget, { force: true }));
    const objectFolder = readdirSync(path.join(projectGit, 'objects')).find((entry) => /^[0-9a-f]{2}$/.test(entry))!;
    const objectFile = path.join(projectGit, 'objects', objectFolder, readdirSync(path.join(projectGit, 'objects', objectFolder))[0]!);
    const targets = [
      path.join(fixture.home, 'planted-by-agent'),
      etcTarget,
      path.join(fixture.project, 'planted-by-agent'),
      path.join(projectGit, 'objects', 'planted-by-agent'),
      objectFile,
      path.join(projectGit, 'refs', 'heads', 'main'),
      path.join(projectGit, 'config'),
      path.join(projectGit, 'hooks', 'pre-commit'),
      path.join(gitDir, 'hooks', 'pre-commit'),
      path.join(gitDir, 'worktrees', 'planted-by-agent'),
      ...protectedFiles,
    ];
    const result = await sh(
      `for f in ${targets.map((t) => `'${t}'`).join(' ')}; do if (echo '# planted' >> "$f") 2>/dev/null; then echo "WROTE $f"; else echo "REFUSED $f"; fi; done; ` +
        // Moving a protected file, or a folder on the way to one, would leave an agent-made one in its place.
        `for f in '${path.join(gitDir, 'worktrees')}' '${adminDir}' '${path.join(gitDir, 'hooks')}' '${path.join(taskRoot.view, '.git')}'; do ` +
        `if mv "$f" "$f.moved" 2>/dev/null; then echo "MOVED $f"; else echo "KEPT $f"; fi; done; ` +
        `git config core.hooksPath /tmp 2>/dev/null && echo SET-HOOKS-PATH; ` +
        `echo agent > sandbox-write-check.txt && echo VIEW-WRITABLE`,
    );
    for (const target of targets) expect(result.stdout).toContain(`REFUSED ${target}`);
    expect(result.stdout).not.toContain('WROTE');
    expect(result.stdout).not.toContain('MOVED');
    expect(result.stdout).not.toContain('SET-HOOKS-PATH');
    expect(result.stdout).toContain('VIEW-WRITABLE');
    // And on the host, nothing changed.
    expect(existsSync(path.join(fixture.home, 'planted-by-agent'))).toBe(false);
    expect(existsSync(etcTarget)).toBe(false);
    expect(existsSync(path.join(fixture.project, 'planted-by-agent'))).toBe(false);
    expect(existsSync(path.join(projectGit, 'objects', 'planted-by-agent'))).toBe(false);
    expect(existsSync(path.join(gitDir, 'hooks', 'pre-commit'))).toBe(false);
    for (const [file, content] of before) expect(readFileSync(file, 'utf8')).toBe(content);
    expect(readFileSync(path.join(projectGit, 'config'), 'utf8')).toBe(projectConfigBefore);
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(mainBefore);
    expect(git(fixture.project, 'fsck', '--no-dangling')).toBe('');
    expect(readFileSync(path.join(taskRoot.view, 'sandbox-write-check.txt'), 'utf8')).toBe('agent\n');
  });

  it('lets the agent commit in its own repository, never the project, and the diff shows it', async () => {
    const result = await sh(
      'echo "written in the sandbox" > agent-file.txt && git add agent-file.txt && ' +
        'git -c user.name=Agent -c user.email=agent@example.invalid commit --quiet -m "agent commit" && echo COMMITTED; ' +
        // Its config is read-only (the operator's own git may read it later); its global one is its own.
        'git gc --quiet && echo GC-OK; git config --global core.editor true && echo GLOBAL-CONFIG-OK; ' +
        'echo "never added" > untracked-by-agent.txt',
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('COMMITTED');
    expect(result.stdout).toContain('GC-OK');
    expect(result.stdout).toContain('GLOBAL-CONFIG-OK');
    expect(readFileSync(path.join(taskRoot.home, '.gitconfig'), 'utf8')).toContain('editor = true');
    const commit = git(taskRoot.view, 'rev-parse', 'HEAD');
    expect(git(taskRoot.view, 'log', '-1', '--format=%s')).toBe('agent commit');
    expect(() => git(fixture.project, 'cat-file', '-e', commit)).toThrow();
    expect(git(fixture.project, 'branch', '--list', 'operator-console/*')).toBe('');
    const diff = await diffTaskView(taskRoot, await fixtureTools(fixture, { sandboxed: true }));
    expect(diff.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'agent-file.txt', status: 'added' }),
        expect.objectContaining({ path: 'untracked-by-agent.txt', status: 'added' }),
      ]),
    );
    expect(diff.unifiedDiff).toContain('+written in the sandbox');
  });

  it("cannot reach the host's loopback with the network off, and can with it open", async () => {
    const port = await hostListener();
    const off = await sandbox([node, '-e', connectScript(port)], { networkMode: 'none' });
    expect(off.stdout.trim()).toMatch(/^FAILED /);
    const open = await sandbox([node, '-e', connectScript(port)], { networkMode: 'open' });
    expect(open.stdout.trim()).toBe('CONNECTED host-listener');
  });

  it('in provider-only mode reaches only allowed endpoints, through the relay and the egress proxy', async () => {
    const allowedPort = await hostHttpServer('allowed-ok');
    const deniedPort = await hostHttpServer('must-not-be-reached');
    const rawPort = await hostListener();
    const decisions: EgressDecision[] = [];
    const allow = [{ host: '127.0.0.1', port: allowedPort }];
    const socketPath = await egressSocketPath(taskRoot);
    const proxy = await startEgressProxy({ socketPath, allow, owner: setup.user, onDecision: (decision) => decisions.push(decision) });
    cleanups.push(() => proxy.close());
    const forwards = loopbackForwards(allow);
    const relayPort = chooseRelayPort(forwards);

    // Inside: a request through the proxy (as a CLI honouring HTTP_PROXY sends it), a CONNECT to a
    // refused port, a plain request to the allowed port (NO_PROXY: via the relay's forward), and
    // raw connects that try to bypass the proxy.
    const probe = `
      const http = require('http'), net = require('net');
      const proxy = new URL(process.env.HTTP_PROXY);
      const viaProxy = (port) => new Promise((resolve) => {
        http.get({ host: proxy.hostname, port: proxy.port, path: 'http://127.0.0.1:' + port + '/' }, (res) => {
          let body = ''; res.on('data', (c) => body += c); res.on('end', () => resolve(res.statusCode + ' ' + body.trim()));
        }).on('error', (e) => resolve('ERROR ' + e.code));
      });
      const connectVerb = (port) => new Promise((resolve) => {
        http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: '127.0.0.1:' + port })
          .on('connect', (res, socket) => { socket.destroy(); resolve('CONNECT ' + res.statusCode); })
          .on('error', (e) => resolve('ERROR ' + e.code)).end();
      });
      const direct = (port) => new Promise((resolve) => {
        http.get('http://127.0.0.1:' + port + '/', (res) => {
          let body = ''; res.on('data', (c) => body += c); res.on('end', () => resolve(res.statusCode + ' ' + body.trim()));
        }).on('error', (e) => resolve('ERROR ' + e.code));
      });
      const raw = (port) => new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve('RAW-CONNECTED'); });
        s.on('error', (e) => resolve('RAW-FAILED ' + e.code));
      });
      (async () => {
        console.log(JSON.stringify({
          allowed: await viaProxy(${allowedPort}),
          denied: await viaProxy(${deniedPort}),
          connectDenied: await connectVerb(${deniedPort}),
          connectAllowed: await connectVerb(${allowedPort}),
          directAllowed: await direct(${allowedPort}),
          rawDenied: await raw(${deniedPort}),
          rawOther: await raw(${rawPort}),
        }));
      })();
    `;
    const command = egressRelayCommand({
      nodePath: node,
      relayScript: findEgressRelayScript(),
      socketPath,
      relayPort,
      forwards,
      command: [node, '-e', probe],
    });
    const result = await sandbox(command, { networkMode: 'provider-only', proxySocket: socketPath, extraEnv: egressProxyEnvironment(relayPort) });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      allowed: '200 allowed-ok',
      denied: `403 Operator Console egress proxy: 127.0.0.1:${deniedPort} is not allowed for this run.`,
      connectDenied: 'CONNECT 403',
      connectAllowed: 'CONNECT 200',
      directAllowed: '200 allowed-ok',
      rawDenied: 'RAW-FAILED ECONNREFUSED',
      rawOther: 'RAW-FAILED ECONNREFUSED',
    });
    const summary = decisions.map((decision) => `${decision.method} ${decision.host}:${decision.port} ${decision.allowed}`);
    expect(summary).toEqual([
      `GET 127.0.0.1:${allowedPort} true`,
      `GET 127.0.0.1:${deniedPort} false`,
      `CONNECT 127.0.0.1:${deniedPort} false`,
      `CONNECT 127.0.0.1:${allowedPort} true`,
      `CONNECT 127.0.0.1:${allowedPort} true`,
    ]);
    for (const decision of decisions) expect(Date.parse(decision.at)).not.toBeNaN();
  });

  it("passes the agent's exit code through the relay, and SIGTERM to the agent", async () => {
    const socketPath = await egressSocketPath(taskRoot);
    const proxy = await startEgressProxy({ socketPath, allow: [], owner: setup.user });
    cleanups.push(() => proxy.close());
    const relay = (command: string[]) =>
      egressRelayCommand({ nodePath: node, relayScript: findEgressRelayScript(), socketPath, relayPort: 3128, forwards: [], command });
    const options = { networkMode: 'provider-only' as const, proxySocket: socketPath };

    const exit = await sandbox(relay(['/bin/sh', '-c', 'exit 7']), options);
    expect(exit.code).toBe(7);

    const marker = `relay-term-${randomInt(1e9)}`;
    const relayed = sandboxCommand(relay(['/bin/sh', '-c', `trap 'echo agent-got-term; exit 3' TERM; echo ${marker}; while :; do sleep 0.1; done`]), options);
    const running = runCommand(relayed.file, relayed.args, confinedEnv(), 8_000);
    // Once the agent's shell catches TERM (its trap is set, which the kernel shows in SigCgt), the
    // relay has started it and set up its own handlers: no sleep that a loaded machine can outlast.
    await waitFor(() => agentShellCatchesTerm(marker), 5_000, 'the agent to start and set its trap');
    process.kill(relayPid(marker)!, 'SIGTERM');
    const result = await running;
    expect(result.stdout).toContain('agent-got-term');
    expect(result.code).toBe(3);
  });

  function agentShellCatchesTerm(marker: string): boolean {
    return pidsWithMarker(marker).some((pid) => {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/bin/sh')) return false;
      const caught = /^SigCgt:\s*([0-9a-f]+)$/im.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      // Signal n is bit n-1 of the mask; SIGTERM is 15.
      return caught !== undefined && (BigInt(`0x${caught}`) & (1n << 14n)) !== 0n;
    });
  }

  /** The relay's host pid: the node process whose argv names the relay script and the marker. */
  function relayPid(marker: string): number | null {
    for (const pid of pidsWithMarker(marker)) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] === node && argv[1]?.endsWith('egress-relay.mjs')) return pid;
    }
    return null;
  }

  it('gives the child exactly the confined environment: no planted credential, no ssh-agent socket', async () => {
    const result = await sandbox([node, '-e', 'process.stdout.write(JSON.stringify(process.env))']);
    const childEnv = JSON.parse(result.stdout) as Record<string, string>;
    expect(childEnv).toEqual({
      PATH: operatorEnv().PATH,
      LANG: 'C.UTF-8',
      USER: 'operator',
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      HOME: taskRoot.home,
      TMPDIR: taskRoot.tmp,
      TMP: taskRoot.tmp,
      TEMP: taskRoot.tmp,
      PWD: taskRoot.view,
      OPERATOR_CONSOLE_TASK_ROOT: taskRoot.root,
      CODEX_HOME: path.join(taskRoot.cache, 'codex-home'),
      FIXTURE: 'present',
    });
    const everything = JSON.stringify(childEnv);
    for (const planted of ['sk-planted', 'ghp_planted', plantedAwsSecret, 'ssh-planted', 'db-planted']) expect(everything).not.toContain(planted);
  });

  it("shows ps only the sandbox's own processes", async () => {
    const marker = `4${randomInt(100, 999)}.${randomInt(1e6)}`;
    const hostProcess = spawn('sleep', [marker], { stdio: 'ignore' });
    cleanups.push(() => void hostProcess.kill('SIGKILL'));
    await waitFor(() => pidsWithMarker(marker).length > 0, 5_000, 'the host marker process');

    const result = await sh('ps -e -o pid=,args=');
    const lines = result.stdout.trim().split('\n').map((line) => line.trim());
    expect(result.stdout).not.toContain(marker);
    expect(lines.some((line) => line.endsWith('ps -e -o pid=,args='))).toBe(true);
    // bubblewrap's init, the shell and ps: nothing of the host.
    expect(lines.length).toBeLessThanOrEqual(4);
    for (const line of lines) expect(Number(line.split(/\s+/)[0])).toBeLessThan(10);
  });

  it('dies with its parent: SIGKILL to the process that started bwrap leaves nothing of the run alive', async () => {
    const marker = `5${randomInt(100, 999)}.${randomInt(1e6)}`;
    const starter = `
      const { spawn } = require('child_process');
      const [file, ...args] = JSON.parse(process.argv[1]);
      spawn(file, args, { stdio: 'ignore' });
      setInterval(() => {}, 1000);
    `;
    const sleeper = sandboxCommand(['sleep', marker]);
    const parent: ChildProcess = spawn(node, ['-e', starter, JSON.stringify([sleeper.file, ...sleeper.args])], {
      env: confinedEnv(),
      stdio: 'ignore',
    });
    cleanups.push(() => {
      parent.kill('SIGKILL');
      for (const pid of pidsWithMarker(marker)) process.kill(pid, 'SIGKILL');
    });
    // bwrap, its init and the sleep all carry the marker in their argv.
    await waitFor(() => pidsWithMarker(marker).some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep')), 5_000, 'the sandboxed sleep');

    parent.kill('SIGKILL');
    await waitFor(() => pidsWithMarker(marker).length === 0, 5_000, 'every process of the run to end');
  });

  it('shows a preconfigured home only its linked files and the CLI installation, read-only', async () => {
    const codexDir = path.join(fixture.home, '.codex');
    mkdirSync(codexDir, { recursive: true });
    writeFileSync(path.join(codexDir, 'auth.json'), '{"token":"operator-login"}\n', { mode: 0o600 });
    writeFileSync(path.join(codexDir, 'history.jsonl'), 'private history\n');
    const binDir = path.join(fixture.home, '.local', 'bin');
    mkdirSync(binDir, { recursive: true });
    const cli = path.join(binDir, 'fake-cli');
    writeFileSync(cli, '#!/bin/sh\necho cli-ran\ncat "$CODEX_HOME/auth.json"\n');
    chmodSync(cli, 0o755);
    writeFileSync(path.join(fixture.home, '.local', 'private.txt'), 'not for the agent\n');

    const ownRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_operator', project: { path: fixture.project, isGitRepo: true } });
    const asOperator = { taskRoot: ownRoot, mounts: await prepareTaskRootMounts(ownRoot, null) };
    const operatorHomeInput = { home: codexDefinition.home, cache: ownRoot.cache, operatorHome: fixture.home, operatorEnv: {} };
    await prepareProviderHome({ ...operatorHomeInput, mode: 'preconfigured' });
    const home = await prepareProviderHome({ ...operatorHomeInput, mode: 'preconfigured' });
    const readOnlyRebinds = readOnlyRebindsFor({ linkTargets: home.links.map((link) => link.target), installationDirs: [binDir] });

    const result = await sh(
      `'${cli}'; cat '${codexDir}/history.jsonl' 2>/dev/null || echo HISTORY-HIDDEN; ` +
        `cat '${fixture.home}/.local/private.txt' 2>/dev/null || echo PRIVATE-HIDDEN; ` +
        `(echo tampered >> "$CODEX_HOME/auth.json") 2>/dev/null && echo WROTE-LOGIN; ` +
        `cat '${fixture.home}/.ssh/id_rsa' 2>/dev/null || echo SSH-HIDDEN`,
      // A preconfigured home is the operator's own login, never admitted into a sandbox that runs as
      // nobody (it needs a managed connection); here, a console the operator runs.
      { readOnlyRebinds, asOperator },
    );
    expect(result.stdout.trim().split('\n'), result.stderr).toEqual(['cli-ran', '{"token":"operator-login"}', 'HISTORY-HIDDEN', 'PRIVATE-HIDDEN', 'SSH-HIDDEN']);
    expect(readFileSync(path.join(codexDir, 'auth.json'), 'utf8')).toBe('{"token":"operator-login"}\n');
  });

  it("shows an isolated home nothing of the operator's home", async () => {
    const codexDir = path.join(fixture.home, '.codex');
    mkdirSync(codexDir, { recursive: true });
    writeFileSync(path.join(codexDir, 'auth.json'), '{"token":"operator-login"}\n');
    const home = await prepareProviderHome({ home: codexDefinition.home, mode: 'isolated', cache: taskRoot.cache, operatorHome: fixture.home, operatorEnv: {} });
    expect(home.links).toEqual([]);

    const result = await sh(`ls -A "$CODEX_HOME"; echo ---; find '${fixture.home}' -type f 2>/dev/null; find '${fixture.home}' -type l 2>/dev/null`);
    const [codexListing, files] = result.stdout.split('---\n');
    expect(codexListing?.trim()).toBe('');
    for (const forbidden of ['.ssh', '.aws', '.codex', '/other/', 'operator-login']) expect(files).not.toContain(forbidden);
    // What is visible under the home is only the task root and the project's git objects.
    for (const file of (files ?? '').trim().split('\n').filter(Boolean)) {
      expect(file.startsWith(taskRoot.root) || file.startsWith(path.join(fixture.project, '.git', 'objects')), file).toBe(true);
    }
  });
});
