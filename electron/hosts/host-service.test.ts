import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostTest } from '../../shared/hosts';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../testing/ssh-test-server';
import { consoleKnownHostsFile } from './host-service';

/**
 * Settings → Hosts through the contract (issue 28), against a real OpenSSH server on 127.0.0.1 (its
 * own host key, a separate user account as the remote, key auth through a test ssh-agent, a Host
 * alias in the client's ssh config): the console's ssh never accepts a host key silently, tests the
 * host only once the operator trusted its key, refuses a changed key with both fingerprints, and
 * reports what the host has.
 */

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer();
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

/** A console whose operator has the test server's ssh config and agent (SSH_AUTH_SOCK), unless told otherwise. */
async function consoleWith(env: Record<string, string | undefined> = {}) {
  const bed = await openRunTestBed({
    operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env, ...env },
  });
  beds.push(bed);
  return bed;
}

function ready(test: HostTest) {
  if (test.outcome !== 'ready') throw new Error(`expected a report, got ${JSON.stringify(test)}`);
  return test.report;
}

function sshAsOperator(args: string[], knownHosts: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'ssh',
      ['-F', server.configFile, '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=yes', '--', server.alias, ...args],
      { env: { ...process.env, ...server.env }, timeout: 20_000 },
      (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('SSH hosts', () => {
  it('refuse an unknown host key with its fingerprint, trust it only when told, then report what the host has', async () => {
    const b = await consoleWith();
    const host = await b.call('addHost', { name: server.alias });
    expect(host).toMatchObject({ name: server.alias, lastTest: null, environmentIds: [] });
    expect(await b.call('listHosts')).toEqual([host]);

    // ssh knows no key for it: refused, with the fingerprint ssh-keygen -lf gives, and nothing was written anywhere.
    const unknown = await b.call('testHost', { hostId: host.id });
    expect(unknown).toMatchObject({
      outcome: 'host_key_unknown',
      destination: { user: remoteTestUser, hostname: '127.0.0.1', port: server.port, proxyJump: null },
      presented: { type: 'ED25519', fingerprint: server.hostKeyFingerprint() },
    });
    const knownHosts = consoleKnownHostsFile(b.dataDir);
    expect(existsSync(knownHosts)).toBe(false);
    expect(existsSync(server.operatorKnownHosts)).toBe(false);
    // Testing again does not get past it either.
    expect(await b.call('testHost', { hostId: host.id })).toMatchObject({ outcome: 'host_key_unknown' });

    // Trust takes only the fingerprint that was shown.
    await expect(b.call('trustHostKey', { hostId: host.id, fingerprint: `SHA256:${'A'.repeat(43)}` })).rejects.toMatchObject({ code: 'conflict', reason: 'host_key_not_presented' });
    expect(existsSync(knownHosts)).toBe(false);
    // The operator may take their time to compare: the key shown is still the one trusted after a restart.
    await b.restart();
    await b.call('trustHostKey', { hostId: host.id, fingerprint: server.hostKeyFingerprint() });
    expect(readFileSync(knownHosts, 'utf8')).toContain(`[127.0.0.1]:${server.port} ssh-ed25519 `);
    expect(existsSync(server.operatorKnownHosts)).toBe(false);

    const tested = await b.call('testHost', { hostId: host.id });
    const report = ready(tested);
    expect(report.bubblewrap).toMatchObject({ path: expect.stringMatching(/\/bwrap$/), userNamespaces: true, refusal: null });
    expect(report.bubblewrap!.version).toMatch(/^bubblewrap \d/);
    expect(report.git!.version).toMatch(/^git version \d/);
    expect(report.cores).toBeGreaterThanOrEqual(1);
    expect(report.home).toBe(`/home/${remoteTestUser}`);
    expect(report.homeFreeBytes).toBeGreaterThan(0);
    expect(report.clis.map((cli) => [cli.executable, cli.version])).toEqual([
      ['codex', '0.171.0'],
      ['claude', null],
      ['pi', null],
      ['gemini', null],
    ]);
    // What the last test found stays with the host.
    expect((await b.call('listHosts'))[0]!.lastTest).toEqual(tested);

    // The remote account is not the console's: it cannot read the console's data directory.
    const look = await sshAsOperator(['ls', b.dataDir], knownHosts);
    expect(look.code).not.toBe(0);
    expect(look.stderr).toMatch(/Permission denied/);
  }, 120_000);

  it('refuse a changed host key with both fingerprints, and offer nothing that would replace it', async () => {
    const b = await consoleWith();
    const host = await b.call('addHost', { name: server.alias });
    const first = await b.call('testHost', { hostId: host.id });
    expect(first.outcome).toBe('host_key_unknown');
    const trusted = server.hostKeyFingerprint();
    await b.call('trustHostKey', { hostId: host.id, fingerprint: trusted });
    ready(await b.call('testHost', { hostId: host.id }));
    const knownHosts = consoleKnownHostsFile(b.dataDir);
    const before = readFileSync(knownHosts, 'utf8');

    await server.replaceHostKey();
    const replaced = server.hostKeyFingerprint();
    expect(replaced).not.toBe(trusted);
    const changed = await b.call('testHost', { hostId: host.id });
    expect(changed).toMatchObject({
      outcome: 'host_key_changed',
      known: { type: 'ED25519', fingerprint: trusted, file: knownHosts, line: 1 },
      presented: { type: 'ED25519', fingerprint: replaced },
    });
    // The new key cannot be trusted from the console, and the file is as it was.
    await expect(b.call('trustHostKey', { hostId: host.id, fingerprint: replaced })).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(knownHosts, 'utf8')).toBe(before);
    expect(await b.call('testHost', { hostId: host.id })).toMatchObject({ outcome: 'host_key_changed' });
  }, 120_000);

  it('refuse a host name ssh would read as an option, or that carries spaces or control characters, and run nothing', async () => {
    const b = await consoleWith();
    const marker = path.join(b.dataDir, 'proxy-command-ran');
    for (const name of [`-oProxyCommand=touch ${marker}`, '-oProxyCommand=id', 'user@-oProxyCommand=id', 'test-box extra', 'test\nbox', 'test\u001bbox', 'a;id', '']) {
      await expect(b.call('addHost', { name }), JSON.stringify(name)).rejects.toMatchObject({ code: 'invalid_request' });
    }
    // The service checks again for whoever calls it without the contract.
    await expect(b.core.dispatch('addHost', { name: '-oProxyCommand=id' }, { transport: 'browser' })).resolves.toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await b.call('listHosts')).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('say a host that cannot log in without asking is not logged in to, with what to do, and keep names unique', async () => {
    const b = await consoleWith({ SSH_AUTH_SOCK: undefined });
    const host = await b.call('addHost', { name: server.alias });
    await expect(b.call('addHost', { name: server.alias.toUpperCase() })).rejects.toMatchObject({ code: 'conflict', reason: 'host_exists' });
    const unknown = await b.call('testHost', { hostId: host.id });
    if (unknown.outcome !== 'host_key_unknown') throw new Error(unknown.outcome);
    await b.call('trustHostKey', { hostId: host.id, fingerprint: unknown.presented.fingerprint });
    await expect(b.call('testHost', { hostId: host.id })).rejects.toMatchObject({
      code: 'ssh_failed',
      reason: 'auth_failed',
      message: expect.stringMatching(/never types a password.*ssh-add/),
    });
    expect(await b.call('removeHost', { hostId: host.id })).toEqual({ hostId: host.id });
    expect(await b.call('listHosts')).toEqual([]);
  }, 60_000);

  it('test at once a host the operator’s own known_hosts knows, reached through a ProxyJump of their ssh config', async () => {
    // The operator trusted the key themselves, long ago: the console asks nothing and writes nothing.
    writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
    try {
      const b = await consoleWith();
      const host = await b.call('addHost', { name: server.jumpAlias });
      const tested = await b.call('testHost', { hostId: host.id });
      expect(tested).toMatchObject({ outcome: 'ready', destination: { user: remoteTestUser, hostname: '127.0.0.1', port: server.port, proxyJump: server.alias } });
      expect(ready(tested).git?.version).toMatch(/^git version/);
      expect(existsSync(consoleKnownHostsFile(b.dataDir))).toBe(false);
      expect(readFileSync(server.operatorKnownHosts, 'utf8')).toBe(`${server.knownHostsLine()}\n`);
    } finally {
      rmSync(server.operatorKnownHosts, { force: true });
    }
  }, 60_000);

  it('refuse a hostile host’s answer with probe_garbled, one that floods with probe_too_large, and a host nothing answers for with unreachable, each saying what to do', async () => {
    writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine(server.garbledPort)}\n${server.knownHostsLine(server.floodPort)}\n`);
    try {
      const b = await consoleWith();
      const garbled = await b.call('addHost', { name: server.garbledAlias });
      await expect(b.call('testHost', { hostId: garbled.id })).rejects.toMatchObject({
        code: 'ssh_failed',
        reason: 'probe_garbled',
        // The escape sequence the host sent is named, never passed on.
        message: expect.stringContaining("garbled-box answered Test host with something other than the console's report (line 3, “home /?]0;owned?”)"),
      });
      // Nothing of the answer was kept.
      expect((await b.call('listHosts'))[0]!.lastTest).toBeNull();

      // A flood is cut at the bound and ssh stopped, long before the test's time limit.
      const flood = await b.call('addHost', { name: server.floodAlias });
      const started = Date.now();
      await expect(b.call('testHost', { hostId: flood.id })).rejects.toMatchObject({ code: 'ssh_failed', reason: 'probe_too_large' });
      expect(Date.now() - started).toBeLessThan(30_000);

      const closed = await b.call('addHost', { name: server.closedAlias });
      await expect(b.call('testHost', { hostId: closed.id })).rejects.toMatchObject({ code: 'ssh_failed', reason: 'unreachable', message: expect.stringContaining('Connection refused') });
    } finally {
      rmSync(server.operatorKnownHosts, { force: true });
    }
  }, 60_000);
});
