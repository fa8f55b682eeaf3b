import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real OpenSSH server for the hosts tests (issue 28): Debian's sshd on 127.0.0.1 and a free port,
 * with its own host key and config in a temp folder, started and stopped by the test. The remote is
 * another user account (`oc-ssh-remote`, made here when the machine has none: it cannot read the
 * tests' data directories, which are 0700 and root's). The client side is what an operator has: an
 * ssh config with a Host alias (so alias resolution is exercised), a known_hosts file of "their own",
 * and an ssh-agent of the test's (its own socket) holding the key sshd accepts. Needs root (sshd
 * switches to the remote user) and openssh-server (.ci/run installs it).
 */

export const remoteTestUser = 'oc-ssh-remote';
/** A second remote account whose login shell is tcsh: what the console sends must not assume a POSIX login shell. */
export const tcshTestUser = 'oc-ssh-tcsh';
const sshd = '/usr/sbin/sshd';
const waitMs = 10_000;

export interface SshTestServer {
  /** The Host alias the client config gives the server. */
  alias: string;
  /** Another alias for the same server, reached through the first one (`ProxyJump`). */
  jumpAlias: string;
  /** An alias for a second port of the server, where every session prints a report that is not one (a hostile host). */
  garbledAlias: string;
  garbledPort: number;
  /** An alias for a third port, where every session floods its output without end. */
  floodAlias: string;
  floodPort: number;
  /** An alias for a port where nothing listens. */
  closedAlias: string;
  /** An alias for the server as `tcshTestUser`, whose login shell is tcsh. */
  tcshAlias: string;
  /** The main port as root (refused unless the server was started with `rootLogin`). */
  rootAlias: string;
  port: number;
  user: string;
  /** The client's ssh config (`ssh -F`), with the alias. */
  configFile: string;
  /** The known_hosts file the config names: the operator's own. */
  operatorKnownHosts: string;
  /** The client's environment: the test agent's socket. */
  env: { SSH_AUTH_SOCK: string };
  /** The server's host key as `ssh-keygen -lf` prints its fingerprint. */
  hostKeyFingerprint(): string;
  /** The server's host key as a known_hosts line for one of its ports (default the main one), as the operator's own file would hold it. */
  knownHostsLine(port?: number): string;
  /** Restarts sshd on the same port with a new host key (what a changed key looks like). */
  replaceHostKey(): Promise<void>;
  /** Stops the listening sshd (connections already open go on): the host is unreachable until `startListening`. */
  stopListening(): Promise<void>;
  startListening(): Promise<void>;
  stop(): Promise<void>;
}

/** The remote account, made once per machine: a home of its own, a shell, a password nobody can type ('*', not locked). */
export function ensureRemoteTestUser(user = remoteTestUser, shell = '/bin/sh'): void {
  try {
    execFileSync('id', ['-u', user], { stdio: 'ignore' });
    return;
  } catch {
    // Not there yet.
  }
  try {
    execFileSync('useradd', ['--create-home', '--shell', shell, '--password', '*', user], { stdio: 'pipe' });
  } catch {
    // Another test file may have made it meanwhile; if not, this throws.
    execFileSync('id', ['-u', user], { stdio: 'ignore' });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

function keygen(file: string, comment: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
}

/** Starts a program and waits (bounded) until it says `ready` on stderr, or `ready()` holds. */
async function startAndWait(command: string, args: string[], ready: { line?: RegExp; check?: () => boolean }, env?: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: env ?? process.env });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const done = (error?: Error) => {
      clearInterval(poll);
      child.stderr.off('data', onData);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve();
    };
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString();
      if (ready.line?.test(stderr)) done();
    };
    child.stderr.on('data', onData);
    const poll = setInterval(() => {
      if (ready.check?.()) done();
      else if (Date.now() - started > waitMs) done(new Error(`${command} was not ready in ${waitMs} ms:\n${stderr}`));
      else if (child.exitCode !== null) done(new Error(`${command} exited (${child.exitCode}):\n${stderr}`));
    }, 25);
  });
  // Keep reading, so a chatty server never blocks on a full pipe.
  child.stderr.resume();
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface SshTestServerOptions {
  /**
   * Lets root log in too, with the test key only (`PermitRootLogin prohibit-password`), as `rootAlias`:
   * its authorized key is in this server's own folder (AuthorizedKeysFile), never in /root/.ssh.
   */
  rootLogin?: boolean;
}

export async function startSshTestServer(options: SshTestServerOptions = {}): Promise<SshTestServer> {
  ensureRemoteTestUser();
  ensureRemoteTestUser(tcshTestUser, '/usr/bin/tcsh');
  // sshd's privilege separation folder (Debian makes it at boot; a container may not have it).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(path.join(tmpdir(), 'oc-sshd-'));
  // The remote user reads its authorized keys here (sshd reads them as that user).
  chmodSync(dir, 0o755);
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'client_ed25519');
  const authorizedKeys = path.join(dir, 'authorized_keys');
  mkdirSync(authorizedKeys, { mode: 0o755 });
  keygen(hostKey, 'oc-sshd-test-host');
  keygen(clientKey, 'oc-sshd-test-client');
  for (const user of [remoteTestUser, tcshTestUser]) writeFileSync(path.join(authorizedKeys, user), readFileSync(`${clientKey}.pub`), { mode: 0o644 });
  if (options.rootLogin) writeFileSync(path.join(authorizedKeys, 'root'), readFileSync(`${clientKey}.pub`), { mode: 0o644 });
  // An agent CLI on the remote's PATH (a stand-in that prints Codex's version line), so Test host finds one.
  const remoteBin = path.join(dir, 'remote-bin');
  mkdirSync(remoteBin, { mode: 0o755 });
  writeFileSync(path.join(remoteBin, 'codex'), '#!/bin/sh\necho "codex-cli 0.171.0"\n', { mode: 0o755 });
  const port = await freePort();
  const garbledPort = await freePort();
  const floodPort = await freePort();
  const closedPort = await freePort();
  const sshdConfig = path.join(dir, 'sshd_config');
  writeFileSync(
    sshdConfig,
    [
      'ListenAddress 127.0.0.1',
      `Port ${port}`,
      `Port ${garbledPort}`,
      `Port ${floodPort}`,
      `HostKey ${hostKey}`,
      'PidFile none',
      // The remote account's password is '*' (not locked), so sshd's own account check lets it in without PAM.
      'UsePAM no',
      // The authorized keys live in this temp folder, under /tmp (world-writable, which StrictModes refuses).
      'StrictModes no',
      `AuthorizedKeysFile ${authorizedKeys}/%u`,
      `AllowUsers ${remoteTestUser} ${tcshTestUser}${options.rootLogin ? ' root' : ''}`,
      `SetEnv PATH=${remoteBin}:/usr/local/bin:/usr/bin:/bin`,
      options.rootLogin ? 'PermitRootLogin prohibit-password' : 'PermitRootLogin no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      // What ProxyJump needs (ssh -W to this server itself), and the model tunnel's -R of a Unix socket:
      // sshd refuses every remote forward, Unix sockets included, unless TCP forwarding is allowed both ways.
      'AllowTcpForwarding yes',
      `PermitOpen 127.0.0.1:${port}`,
      // The hostile host: whatever it is asked, it answers with a report that is not one.
      `Match LocalPort ${garbledPort}`,
      `  ForceCommand printf 'operator-console-probe 1\\ncores lots\\nhome /\\033]0;owned\\007\\nend\\n'`,
      `Match LocalPort ${floodPort}`,
      '  ForceCommand yes operator-console-probe',
      'X11Forwarding no',
      '',
    ].join('\n'),
  );
  const listening = new RegExp([port, garbledPort, floodPort].map((each) => `(?=[\\s\\S]*port ${each}\\.)`).join(''));
  const startSshd = () => startAndWait(sshd, ['-f', sshdConfig, '-D', '-e'], { line: listening });
  let server = await startSshd();

  const agentSocket = path.join(dir, 'agent.sock');
  const agent = await startAndWait('ssh-agent', ['-D', '-a', agentSocket], { check: () => existsSync(agentSocket) });
  const env = { SSH_AUTH_SOCK: agentSocket };
  execFileSync('ssh-add', ['-q', clientKey], { env: { ...process.env, ...env }, stdio: 'pipe' });

  const alias = 'test-box';
  const jumpAlias = 'test-box-via-jump';
  const garbledAlias = 'garbled-box';
  const closedAlias = 'closed-box';
  const floodAlias = 'flood-box';
  const tcshAlias = 'tcsh-box';
  const rootAlias = 'root-box';
  const operatorKnownHosts = path.join(dir, 'operator_known_hosts');
  const configFile = path.join(dir, 'ssh_config');
  writeFileSync(
    configFile,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${remoteTestUser}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      // The machine's own known hosts play no part in the test.
      '  GlobalKnownHostsFile /dev/null',
      `Host ${jumpAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${remoteTestUser}`,
      `  ProxyJump ${alias}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      `Host ${garbledAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${garbledPort}`,
      `  User ${remoteTestUser}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      `Host ${floodAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${floodPort}`,
      `  User ${remoteTestUser}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      `Host ${tcshAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${tcshTestUser}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      `Host ${rootAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      '  User root',
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      `Host ${closedAlias}`,
      '  HostName 127.0.0.1',
      `  Port ${closedPort}`,
      `  User ${remoteTestUser}`,
      `  UserKnownHostsFile ${operatorKnownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n'),
  );

  return {
    alias,
    jumpAlias,
    garbledAlias,
    garbledPort,
    floodAlias,
    floodPort,
    closedAlias,
    tcshAlias,
    rootAlias,
    port,
    user: remoteTestUser,
    configFile,
    operatorKnownHosts,
    env,
    knownHostsLine: (on = port) => {
      const [type, key] = readFileSync(`${hostKey}.pub`, 'utf8').split(' ');
      return `[127.0.0.1]:${on} ${type} ${key}`;
    },
    hostKeyFingerprint: () => execFileSync('ssh-keygen', ['-lf', `${hostKey}.pub`], { encoding: 'utf8' }).split(' ')[1]!,
    replaceHostKey: async () => {
      await stopChild(server);
      rmSync(hostKey);
      rmSync(`${hostKey}.pub`);
      keygen(hostKey, 'oc-sshd-test-host-replaced');
      server = await startSshd();
    },
    stopListening: () => stopChild(server),
    startListening: async () => {
      server = await startSshd();
    },
    stop: async () => {
      await stopChild(server);
      await stopChild(agent);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
