import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../testing/ssh-test-server';
import { deliverFilesOnHost, removeFilesOnHost } from './host-credential-files';
import { sshConnectionTo, type SshConnection } from './remote-script';
import { sshEnvironment } from './ssh-command';

/**
 * A managed connection's login file into a run's provider home on an SSH host and out again, with a
 * real sshd on 127.0.0.1 (the remote another user account): 0600, removed after, and never written or
 * removed through a link an agent left in the provider home.
 */

const remoteHome = `/home/${remoteTestUser}`;
let server: SshTestServer;
let ssh: SshConnection;
let temp: { path: string; remove: () => void };
beforeAll(async () => {
  server = await startSshTestServer();
  temp = makeTempDir('oc-host-files-');
  writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  ssh = await sshConnectionTo({ program: 'ssh', configFile: server.configFile, env: sshEnvironment({ ...process.env, ...server.env }), consoleKnownHosts: path.join(temp.path, 'known_hosts'), connectTimeoutSeconds: 10 }, server.alias);
}, 30_000);
afterAll(async () => {
  await server?.stop();
  temp?.remove();
});
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function providerHome(): string {
  const home = `${remoteHome}/.oc-files-test/${randomBytes(5).toString('hex')}/cache/codex`;
  execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', 'mkdir', '-p', home]);
  cleanups.push(() => rmSync(path.dirname(path.dirname(home)), { recursive: true, force: true }));
  return home;
}

const asAgent = (script: string) => execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', 'sh', '-c', script]);

describe('login files on an SSH host', () => {
  it('are written 0600 into the provider home for the attempt and removed after', async () => {
    const home = providerHome();
    const files = [
      { relativePath: 'auth.json', content: '{"OPENAI_API_KEY":"sk-on-the-host"}\n' },
      { relativePath: 'nested/config.toml', content: 'model = "m"\n' },
    ];
    await deliverFilesOnHost({ ssh, host: server.alias }, home, files);
    expect(readFileSync(`${home}/auth.json`, 'utf8')).toBe('{"OPENAI_API_KEY":"sk-on-the-host"}\n');
    expect(statSync(`${home}/auth.json`).mode & 0o777).toBe(0o600);
    expect(statSync(`${home}/auth.json`).uid).toBe(statSync(remoteHome).uid);
    expect(readFileSync(`${home}/nested/config.toml`, 'utf8')).toBe('model = "m"\n');
    await removeFilesOnHost({ ssh, host: server.alias }, home, files);
    expect(existsSync(`${home}/auth.json`)).toBe(false);
    expect(existsSync(`${home}/nested/config.toml`)).toBe(false);
  }, 60_000);

  it('never write or remove through a link an earlier attempt’s agent left there', async () => {
    const home = providerHome();
    const victim = `${path.dirname(path.dirname(home))}/victim.txt`;
    asAgent(`echo precious > ${victim} && ln -s ${victim} ${home}/auth.json && mkdir -p ${home}/../elsewhere && ln -s ${home}/../elsewhere ${home}/nested`);
    // The link at the file's own path is replaced, not written through.
    await deliverFilesOnHost({ ssh, host: server.alias }, home, [{ relativePath: 'auth.json', content: 'secret\n' }]);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(`${home}/auth.json`).isSymbolicLink()).toBe(false);
    // A linked folder on the way is refused.
    await expect(deliverFilesOnHost({ ssh, host: server.alias }, home, [{ relativePath: 'nested/config.toml', content: 'x\n' }])).rejects.toMatchObject({ code: 'ssh_failed', message: expect.stringMatching(/is a link/) });
    expect(existsSync(`${home}/../elsewhere/config.toml`)).toBe(false);
    // Removal leaves what a link leads to alone.
    asAgent(`echo other > ${home}/../elsewhere/config.toml`);
    await removeFilesOnHost({ ssh, host: server.alias }, home, [{ relativePath: 'nested/config.toml', content: '' }]);
    expect(readFileSync(`${home}/../elsewhere/config.toml`, 'utf8')).toBe('other\n');
  }, 60_000);
});
