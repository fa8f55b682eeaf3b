import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runDiffSchema } from '../../shared/entities';
import type { ServerMessage } from '../../shared/wire';
import { startHostServer } from '../host/host-server';
import { prepareServiceSocketFolder, serviceSocketPath } from '../service/service-socket-path';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { fixtureParent, makeOperatorFixture, pidsWithMarker, type OperatorFixture } from './test-fixtures';

/**
 * Issue 9's attacks, performed for real from inside sandboxed runs (real bubblewrap, real git, real
 * links and FIFOs, the suite running as root as CI does): each one is what an agent tried against the
 * console's own hands, the host-side work on files the run wrote. Every test fails if the guarantee
 * it names is taken away.
 */

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
const key = 'sk-attack-MANAGEDKEY-5e2d9c1b7a3f4e6d8c0b';
const beds: RunTestBed[] = [];
const fixtures: OperatorFixture[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
  for (const fixture of fixtures.splice(0)) fixture.cleanup();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A fake operator (home with planted secrets) and a console whose runs see that home as the operator's. */
async function openConsole(options: { dataDir?: string } = {}) {
  const fixture = makeOperatorFixture('oc-attack-');
  fixtures.push(fixture);
  const bed = await openRunTestBed({ operatorHome: fixture.home, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  beds.push(bed);
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: key, ownership: 'shared', agentScope: 'all' });
  const sandboxed = async (agent: Promise<{ id: string }>) => {
    const created = await agent;
    await bed.call('setAgentConnection', { agentId: created.id, connectionId: connection.id });
    return created;
  };
  return {
    fixture,
    bed,
    /** A sandboxed agent (the command provider) that runs these fixture-agent arguments. */
    commandAgent: (args: string[]) => sandboxed(bed.createAgent(args, { environmentId: 'env_sandboxed', homeMode: 'isolated' })),
    /** A sandboxed stand-in for Codex (so a managed connection's files are delivered) running the project's .agent/attack.sh. */
    codexAgent: () =>
      sandboxed(bed.call('createAgent', { name: 'attacker', providerId: 'fixture-codex', model: 'model-a', profileId: 'attacker', environmentId: 'env_sandboxed', homeMode: 'isolated' })),
    run: async (agentId: string) => {
      const task = await bed.createTask();
      return (await bed.call('startRun', { taskId: task.id, agentId })).id;
    },
    output: (runId: string) => new TextDecoder().decode(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes),
  };
}

/** Commits the attack script the `attacker` profile runs into the project, so the run's view has it. */
function commitAttack(projectDir: string, script: string): void {
  mkdirSync(path.join(projectDir, '.agent'), { recursive: true });
  writeFileSync(path.join(projectDir, '.agent', 'attack.sh'), script);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=Test', ...args], { cwd: projectDir });
  git('add', '.agent/attack.sh');
  git('commit', '-q', '-m', 'attack');
}

/** The egress socket the relay of the run whose command line holds `marker` connects to. */
function relaySocketOf(marker: string): string {
  for (const pid of pidsWithMarker(marker)) {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const relay = argv.findIndex((arg) => arg.endsWith('egress-relay.mjs'));
    if (relay > 0 && argv[relay + 1]) return argv[relay + 1]!;
  }
  throw new Error(`No egress relay runs for ${marker}.`);
}

/** A folder outside the home and outside /tmp (which every sandbox hides anyway), that nobody may walk through. */
function openFolderOutsideTheHome(prefix: string): string {
  const folder = realpathSync(mkdtempSync(path.join(fixtureParent(), prefix)));
  mkdirSync(path.join(folder, 'data'), { mode: 0o700 });
  chmodSync(folder, 0o755);
  // Up to the checkout, or to / when the fixtures are reached through a link (a node_modules linked in
  // from elsewhere): a folder others can already pass through is left as it is.
  for (let parent = path.dirname(folder); parent !== path.resolve('.') && parent !== path.dirname(parent); parent = path.dirname(parent)) {
    if ((statSync(parent).mode & 0o011) !== 0o011) chmodSync(parent, 0o755);
  }
  folders.push(folder);
  return folder;
}

describe('attacks from inside a sandboxed run', () => {
  it("a nested repository's filter and fsmonitor never run on the host when the console diffs the run", async () => {
    const c = await openConsole();
    const pwned = path.join(c.fixture.base, 'PWNED');
    // The program the agent names: on the host it would copy the operator's SSH key out.
    const evil = `#!/bin/sh\ncat '${path.join(c.fixture.home, '.ssh', 'id_rsa')}' >> '${pwned}' 2>/dev/null; id >> '${pwned}'; cat\n`;
    const script = [
      `printf '%s' '${evil.replaceAll("'", "'\\''")}' > evil.sh && chmod +x evil.sh`,
      'mkdir -p vendor/lib && cd vendor/lib && git init -q && echo tracked > code.txt && git add code.txt',
      'git -c user.name=a -c user.email=a@example.invalid commit -q -m nested',
      'git config core.fsmonitor "$OLDPWD/evil.sh" && git config filter.evil.clean "$OLDPWD/evil.sh" && git config diff.evil.textconv "$OLDPWD/evil.sh"',
      "echo '* filter=evil diff=evil' > .gitattributes && touch -d 2099-01-01 code.txt && cd ../..",
      // The agent's own index gets the nested repository as a gitlink, and its view the same attributes.
      "git add vendor/lib 2>/dev/null; echo '* filter=evil diff=evil' > .gitattributes; echo changed >> README.md",
      'git config --global filter.evil.clean "$PWD/evil.sh"; git config --global core.fsmonitor "$PWD/evil.sh"',
    ].join(' && ');
    const agent = await c.commandAgent(['--shell', script, '--sleep-ms', '2500']);
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'running' && c.output(runId).includes('shell exited'));
    expect(c.output(runId)).toContain('shell exited 0');

    // The Changes panel asks while the run is live, and again once it has ended.
    const live = await c.bed.call('getRunDiff', { runId });
    expect((await c.bed.waitForRun(runId, ended)).status).toBe('succeeded');
    const after = await c.bed.call('getRunDiff', { runId });
    for (const diff of [live, after]) {
      expect(diff.files).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: 'README.md', status: 'modified' }), expect.objectContaining({ path: 'evil.sh', status: 'added' })]),
      );
      expect(diff.nestedRepositories).toEqual(['vendor/lib']);
    }
    expect(existsSync(pwned)).toBe(false);
  });

  it("a provider home turned into a link to the operator's own login is neither emptied nor written by cleanup, the retry or recovery", async () => {
    const c = await openConsole();
    const operatorCodex = path.join(c.fixture.home, '.codex');
    mkdirSync(operatorCodex, { recursive: true });
    writeFileSync(path.join(operatorCodex, 'auth.json'), '{"tokens":"operator-login"}\n', { mode: 0o600 });
    writeFileSync(path.join(operatorCodex, 'config.toml'), 'model = "operator-own"\n', { mode: 0o600 });
    // First attempt: swap the provider home (in the writable cache) for a link to the operator's
    // folder, then fail, so the console cleans the attempt up and retries into the linked home.
    commitAttack(
      c.bed.projectDir,
      [
        'if [ ! -e "$HOME/.attempted" ]; then',
        '  touch "$HOME/.attempted"',
        // The delivered files are bind mounts in it, so it cannot be removed, but it can be moved.
        `  mv "$CODEX_HOME" "$CODEX_HOME.moved" && ln -s '${operatorCodex}' "$CODEX_HOME" && echo LINKED`,
        '  exit 3',
        'fi',
        'echo SECOND-ATTEMPT',
      ].join('\n'),
    );
    const agent = await c.codexAgent();
    const run = await c.bed.waitForRun(await c.run(agent.id), ended);
    expect(run.status, c.output(run.id)).toBe('succeeded');
    expect(run.attempts.map((attempt: { failureCode: string | null }) => attempt.failureCode)).toEqual(['process_exit', null]);
    expect(c.output(run.id)).toContain('LINKED');
    // The retry got its key through a real folder again (the console replaced the link).
    expect(c.output(run.id)).toMatch(/SECOND-ATTEMPT/);
    expect(c.output(run.id).match(/file \$CODEX_HOME\/auth\.json: 0600 ".*\[redacted\]/g)).toHaveLength(2);

    expect(readdirSync(operatorCodex).sort()).toEqual(['auth.json', 'config.toml']);
    expect(readFileSync(path.join(operatorCodex, 'auth.json'), 'utf8')).toBe('{"tokens":"operator-login"}\n');
    expect(readFileSync(path.join(operatorCodex, 'config.toml'), 'utf8')).toBe('model = "operator-own"\n');
  });

  it('a data directory outside the home shows a run nothing of itself: no secrets key, no ledger, no other run, no other socket', async () => {
    const dataDir = path.join(openFolderOutsideTheHome('oc-data-outside-'), 'data');
    const c = await openConsole({ dataDir });
    // Another run, live, with its own egress socket and a file in its view.
    const other = await c.commandAgent(['--write-file', 'other-secret.txt', '--file-content', 'OTHER-RUN-SECRET', '--sleep-ms', '20000']);
    const otherRun = await c.run(other.id);
    await c.bed.waitForRun(otherRun, (run) => run.status === 'running' && c.output(otherRun).includes('ready'));
    const otherRoot = path.join(realpathSync(dataDir), 'tasks', otherRun);
    // Readable by anyone who can see them (a careless umask, an ACL): then only the sandbox's hiding
    // stands between the run and these, whoever the run runs as.
    for (const folder of [dataDir, path.join(dataDir, 'tasks'), otherRoot]) chmodSync(folder, 0o755);
    for (const file of ['connection-secrets.key', 'ledger.sqlite']) chmodSync(path.join(dataDir, file), 0o644);
    // Its proxy's socket, wherever it is (in its task root, or in a private folder under /tmp when that
    // path is too long for a socket): the relay in its sandbox names it on its command line.
    const otherSocket = relaySocketOf('OTHER-RUN-SECRET');
    expect(existsSync(otherSocket)).toBe(true);

    const targets = [
      path.join(dataDir, 'connection-secrets.key'),
      path.join(dataDir, 'ledger.sqlite'),
      path.join(otherRoot, 'view', 'other-secret.txt'),
      path.join(otherRoot, 'task-root.json'),
    ];
    // Node connects to a Unix socket: the other run's proxy would let it out. ({{ and }} are literal
    // braces in a command template.)
    const connect = `node -e "const s=require('net').connect('${otherSocket}',()=>{{console.log('SOCKET-CONNECTED');s.destroy()}});s.on('error',e=>console.log('SOCKET-'+e.code))"`;
    const script = [
      `for f in ${targets.map((target) => `'${target}'`).join(' ')}; do if cat "$f" >/dev/null 2>&1; then echo "READ $f"; else echo "DENIED $f"; fi; done`,
      `echo "TASKS: $(ls -A '${path.join(dataDir, 'tasks')}' | tr '\\n' ' ')"`,
      `echo "DATA: $(ls -A '${dataDir}' | tr '\\n' ' ')"`,
      connect,
    ].join('; ');
    const attacker = await c.commandAgent(['--shell', script]);
    const run = await c.bed.waitForRun(await c.run(attacker.id), ended);
    const output = c.output(run.id);
    expect(run.status, JSON.stringify(run.failure)).toBe('succeeded');
    for (const target of targets) expect(output).toContain(`DENIED ${target}`);
    expect(output).not.toContain('READ /');
    expect(output).not.toContain('OTHER-RUN-SECRET');
    expect(output).toContain('SOCKET-ENOENT');
    expect(output).not.toContain('SOCKET-CONNECTED');
    // The data directory shows only the way to the run's own task root: no ledger, no key, no other run.
    expect(output).toMatch(new RegExp(`^TASKS: ${run.id} \r?$`, 'm'));
    expect(output).toMatch(/^DATA: tasks \r?$/m);
    await c.bed.call('stopRun', { runId: otherRun });
  });

  it('a run cannot reach the console service\'s socket, beside the data directory or in the runtime folder, even opened to everyone', async () => {
    const c = await openConsole();
    // The service's two places for its socket (electron/service/service-socket-path.ts): beside the
    // data directory's lock, and, for a data directory too deep for a socket path, a private folder
    // in the runtime folder (here /tmp, as on a machine without XDG_RUNTIME_DIR). Both listening, and
    // both opened to everyone (a careless umask, an ACL): then only the sandbox stands in the way.
    const tooDeep = path.join(c.bed.dataDir, 'd'.repeat(120));
    const sockets = [serviceSocketPath(c.bed.dataDir), serviceSocketPath(tooDeep, { ...process.env, XDG_RUNTIME_DIR: '' })];
    expect(sockets[1]!.startsWith(tmpdir())).toBe(true);
    const servers: net.Server[] = [];
    try {
      for (const socket of sockets) {
        prepareServiceSocketFolder(socket);
        rmSync(socket, { force: true });
        const server = net.createServer((connection) => connection.end('SERVICE-ANSWERED\n'));
        await new Promise<void>((resolve) => server.listen(socket, resolve));
        servers.push(server);
        chmodSync(path.dirname(socket), 0o755);
        chmodSync(socket, 0o777);
      }
      chmodSync(c.bed.dataDir, 0o755);
      // Node connects to each: the service would answer and obey it. ({{ and }} are literal braces in
      // a command template.)
      const connect = (socket: string, name: string) =>
        `node -e "const s=require('net').connect('${socket}',()=>{{console.log('${name}-CONNECTED');s.destroy()}});s.on('error',e=>console.log('${name}-'+e.code))"`;
      const attacker = await c.commandAgent(['--shell', [connect(sockets[0]!, 'BESIDE'), connect(sockets[1]!, 'RUNTIME')].join('; ')]);
      const run = await c.bed.waitForRun(await c.run(attacker.id), ended);
      const output = c.output(run.id);
      expect(run.status, JSON.stringify(run.failure)).toBe('succeeded');
      expect(output).not.toContain('CONNECTED');
      expect(output).not.toContain('SERVICE-ANSWERED');
      expect(output).toContain('BESIDE-ENOENT');
      expect(output).toContain('RUNTIME-ENOENT');
      // The sockets were there and answering all along: the host itself connects.
      for (const socket of sockets) {
        const answer = await new Promise<string>((resolve, reject) => net.connect(socket).on('data', (data) => resolve(String(data))).on('error', reject));
        expect(answer).toBe('SERVICE-ANSWERED\n');
      }
    } finally {
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
      // The runtime folder is shared by every data directory of this user: only this socket goes.
      rmSync(sockets[1]!, { force: true });
      chmodSync(path.dirname(sockets[1]!), 0o700);
    }
  });

  it('a run gets no power over the kernel, also when the console runs as root', async () => {
    const c = await openConsole();
    const swappiness = readFileSync('/proc/sys/vm/swappiness', 'utf8');
    const script = [
      'echo "uid $(id -u)"',
      '(echo 61 > /proc/sys/vm/swappiness) 2>/dev/null && echo WROTE-SYSCTL',
      '(: >> /proc/sys/kernel/core_pattern) 2>/dev/null && echo OPENED-CORE-PATTERN',
      '(: >> /proc/sysrq-trigger) 2>/dev/null && echo OPENED-SYSRQ',
      '(: >> /sys/kernel/uevent_helper) 2>/dev/null && echo WROTE-SYS',
      'cat /etc/shadow >/dev/null 2>&1 && echo READ-SHADOW',
      'unshare -U true 2>/dev/null && echo NEW-USER-NAMESPACE',
      'unshare -r true 2>/dev/null && echo MAPPED-ROOT',
      'mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED',
      // All five capability sets empty (inheritable and bounding too), and no_new_privs set.
      '[ "$(grep -cE "^Cap(Inh|Prm|Eff|Bnd|Amb):\\s*0+$" /proc/self/status)" = 5 ] && echo NO-CAPABILITIES',
      'grep -q "^NoNewPrivs:\\s*1$" /proc/self/status && echo NO-NEW-PRIVILEGES',
      'grep -q "^Seccomp:\\s*2" /proc/self/status && echo SECCOMP-FILTER',
    ].join('; ');
    const agent = await c.commandAgent(['--shell', script]);
    const run = await c.bed.waitForRun(await c.run(agent.id), ended);
    const output = c.output(run.id);
    expect(output).toContain(process.getuid?.() === 0 ? 'uid 65534' : `uid ${process.getuid?.()}`);
    for (const forbidden of ['WROTE-SYSCTL', 'OPENED-CORE-PATTERN', 'OPENED-SYSRQ', 'WROTE-SYS', 'READ-SHADOW', 'NEW-USER-NAMESPACE', 'MAPPED-ROOT', 'MOUNTED']) {
      expect(output).not.toContain(forbidden);
    }
    expect(output).toContain('NO-CAPABILITIES');
    expect(output).toContain('NO-NEW-PRIVILEGES');
    expect(output).toContain('SECCOMP-FILTER');
    expect(readFileSync('/proc/sys/vm/swappiness', 'utf8')).toBe(swappiness);
  });

  it("an index turned into a FIFO never blocks the console: the diff answers, and the host answers every request meanwhile", async () => {
    const c = await openConsole();
    const script = [
      'index="$(git rev-parse --git-dir)/index" && rm -f "$index" && mkfifo "$index" && echo FIFO-INDEX',
      'mkfifo view-fifo && echo changed >> README.md',
    ].join(' && ');
    const agent = await c.commandAgent(['--shell', script, '--sleep-ms', '20000']);
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'running' && c.output(runId).includes('ready'));
    expect(c.output(runId)).toContain('FIFO-INDEX');

    const staticDir = path.join(c.fixture.base, 'static');
    mkdirSync(staticDir);
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>console</title>');
    const host = await startHostServer({ core: c.bed.core, staticDir, port: 0, host: '127.0.0.1', log: c.bed.log });
    try {
      const origin = host.origin;
      const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, { origin });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const answered = new Promise<Extract<ServerMessage, { type: 'response' }>>((resolve) => {
        socket.on('message', (data, binary) => {
          if (binary) return;
          // A text frame is one JSON server message (shared/wire.ts).
          const message = JSON.parse(new TextDecoder().decode(Array.isArray(data) ? Buffer.concat(data) : data)) as ServerMessage;
          if (message.type === 'response' && message.id === 1) resolve(message);
        });
      });
      socket.send(JSON.stringify({ type: 'request', id: 1, channel: 'getRunDiff', input: { runId } }));
      // While the diff is being computed, the host keeps answering.
      const latencies: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        const started = Date.now();
        const status = await new Promise<number>((resolve, reject) =>
          http.get(`${origin}/?token=${host.token}`, (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0))).on('error', reject),
        );
        expect(status).toBe(200);
        latencies.push(Date.now() - started);
      }
      expect(Math.max(...latencies)).toBeLessThan(1_000);
      const diff = await answered;
      expect(diff.ok).toBe(true);
      expect(diff.ok ? runDiffSchema.parse(diff.value).files : []).toContainEqual(expect.objectContaining({ path: 'README.md', status: 'modified' }));
      socket.close();
    } finally {
      await host.close();
      await c.bed.call('stopRun', { runId });
    }
  });

  it("files git reads that the run made FIFOs stall nothing: the Changes, Commit and Land each answer in seconds, naming them", async () => {
    const c = await openConsole();
    const script = [
      'git -c user.name=agent -c user.email=agent@example.invalid commit -q --allow-empty -m "agent work"',
      'echo changed >> README.md && mkdir -p src && mkfifo .gitignore && mkfifo src/.gitattributes && echo FIFOS-MADE',
    ].join(' && ');
    const agent = await c.commandAgent(['--shell', script, '--sleep-ms', '4000']);
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'running' && c.output(runId).includes('shell exited'));
    expect(c.output(runId)).toContain('FIFOS-MADE');
    const project = c.bed.projectDir;
    execFileSync('git', ['config', 'user.name', 'Olga Operator'], { cwd: project });
    execFileSync('git', ['config', 'user.email', 'olga@example.invalid'], { cwd: project });
    const main = () => execFileSync('git', ['rev-parse', 'main'], { cwd: project, encoding: 'utf8' }).trim();
    const mainBefore = main();

    const refusal = { code: 'git_failed', reason: 'unreadable_run_file', message: expect.stringMatching(/\.gitignore \(a FIFO\), src\/\.gitattributes \(a FIFO\)/) };
    const inSeconds = async (what: string, request: () => Promise<unknown>) => {
      const started = Date.now();
      await expect(request(), what).rejects.toMatchObject(refusal);
      // Generous for a loaded two-core machine: git waiting on a FIFO took one to two minutes.
      expect(Date.now() - started, what).toBeLessThan(10_000);
    };
    // The Changes panel asks while the run is live, and again once it has ended.
    await inSeconds('the Changes while the run is live', () => c.bed.call('getRunDiff', { runId }));
    expect((await c.bed.waitForRun(runId, ended)).status).toBe('succeeded');
    await inSeconds('the Changes', () => c.bed.call('getRunDiff', { runId }));
    await inSeconds('Commit', () => c.bed.call('commitRunChanges', { runId, message: 'The agent’s last change' }));
    await inSeconds('Land', () => c.bed.call('landRun', { runId, target: 'main', strategy: 'squash', message: 'Land it' }));
    expect(main()).toBe(mainBefore);
  }, 60_000);

  it('a sandboxed run that commits attributes naming its own filter, tries to plant config and hooks, and turns its index into a FIFO gets nothing from Commit, Land and Push', async () => {
    const c = await openConsole();
    const pwned = path.join(c.fixture.base, 'PWNED');
    const evil = `#!/bin/sh\nid >> '${pwned}'; cat\n`;
    const gitDir = '"$(git rev-parse --git-common-dir)"';
    const script = [
      `printf '%s' '${evil.replaceAll("'", "'\\''")}' > evil.sh && chmod +x evil.sh`,
      // Committed by the agent on its branch: attributes that name a filter, a diff and a merge driver of its own.
      "echo '* filter=evil diff=evil merge=evil' > .gitattributes && echo 'the agent plan' > plan.txt",
      'git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m "agent work"',
      // Planting in its store: config and hooks are read-only in the sandbox, so each try is reported.
      `(git config core.sshCommand "$PWD/evil.sh" 2>/dev/null && echo PLANTED-CONFIG || echo CONFIG-REFUSED)`,
      `(cp evil.sh ${gitDir}/hooks/pre-push 2>/dev/null && echo PLANTED-HOOK || echo HOOK-REFUSED)`,
      // Its own global config (its home) may say anything: the console never reads it.
      'git config --global filter.evil.smudge "$PWD/evil.sh"; git config --global filter.evil.clean "$PWD/evil.sh"; git config --global credential.helper "!$PWD/evil.sh"',
      // Left uncommitted, and the index swapped for a FIFO.
      "echo 'more from the agent' >> plan.txt",
      'index="$(git rev-parse --git-dir)/index" && rm -f "$index" && mkfifo "$index" && echo FIFO-INDEX',
    ].join(' && ');
    const agent = await c.commandAgent(['--shell', script]);
    const runId = await c.run(agent.id);
    const run = await c.bed.waitForRun(runId, ended, 30_000);
    expect(run.status).toBe('succeeded');
    expect(c.output(runId)).toContain('CONFIG-REFUSED');
    expect(c.output(runId)).toContain('HOOK-REFUSED');
    expect(c.output(runId)).toContain('FIFO-INDEX');

    // The operator's project, with a bare repository standing in for its remote and an identity.
    const project = c.bed.projectDir;
    const projectGit = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8' }).trim();
    projectGit('config', 'user.name', 'Olga Operator');
    projectGit('config', 'user.email', 'olga@example.invalid');
    const remote = path.join(c.fixture.base, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    projectGit('remote', 'add', 'origin', remote);

    const started = Date.now();
    await c.bed.call('commitRunChanges', { runId, message: 'The agent’s last change' });
    const plan = await c.bed.call('getLandingPlan', { runId });
    expect(plan).toMatchObject({ available: true, clean: true });
    await c.bed.call('landRun', { runId, target: 'main', strategy: 'squash', message: 'Land the agent’s work' });
    await c.bed.call('pushRunBranch', { runId });
    expect(Date.now() - started).toBeLessThan(60_000);

    // What the agent wrote landed, byte for byte, in main and in the operator's checkout; its
    // attributes came along as a file, and no filter, driver, hook or helper of its ran anywhere.
    expect(readFileSync(path.join(project, 'plan.txt'), 'utf8')).toBe('the agent plan\nmore from the agent\n');
    expect(projectGit('show', 'main:.gitattributes')).toBe('* filter=evil diff=evil merge=evil');
    expect(projectGit('status', '--porcelain')).toBe('');
    expect(execFileSync('git', ['log', '-1', '--format=%s', `refs/heads/operator-console/${runId}`], { cwd: remote, encoding: 'utf8' }).trim()).toBe('The agent’s last change');
    expect(existsSync(pwned)).toBe(false);
  }, 90_000);

  it('the key a managed connection delivers is never written where the run can write, and a dead console leaves none behind', async () => {
    const dataDir = path.join(openFolderOutsideTheHome('oc-data-recovery-'), 'data');
    const c = await openConsole({ dataDir });
    commitAttack(c.bed.projectDir, 'sleep 30');
    const agent = await c.codexAgent();
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'running' && c.output(runId).includes('file $CODEX_HOME/auth.json'));
    const root = path.join(realpathSync(dataDir), 'tasks', runId);
    const grep = spawnSync('grep', ['-rlF', '--', key, ...['view', 'tmp', 'cache', 'home', 'git'].map((dir) => path.join(root, dir))], { encoding: 'utf8' });
    expect(grep.status, grep.stdout).toBe(1); // 1: not found anywhere
    expect(readFileSync(path.join(root, 'delivered', 'auth.json'), 'utf8')).toContain(key);

    // The console goes away without its attempt cleanup (as after a crash); the next one strands the
    // run and removes the delivered files from the console's own folder.
    await c.bed.core.close();
    beds.splice(beds.indexOf(c.bed), 1);
    const next = await openRunTestBed({ dataDir, operatorHome: c.fixture.home });
    beds.push(next);
    await next.waitForRun(runId, (run) => run.status === 'stranded');
    expect(existsSync(path.join(root, 'delivered'))).toBe(false);
  });
});
