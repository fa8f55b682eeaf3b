import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTool, type ToolIsolation, type ToolRun } from './tool-sandbox';
import { fixtureTools, makeOperatorFixture, plantedSshKey, type OperatorFixture } from './test-fixtures';

/**
 * The sandbox the console's own tools run in when they touch a run's files (real bubblewrap): even a
 * tool tricked into running the agent's program reaches nothing, and no tool can hold the console.
 */

let fixture: OperatorFixture;
let isolation: ToolIsolation;

beforeEach(async () => {
  fixture = makeOperatorFixture('oc-tool-sandbox-');
  isolation = (await fixtureTools(fixture, { sandboxed: true })).isolation;
});

afterEach(() => fixture.cleanup());

function run(command: string[], overrides: Partial<ToolRun> = {}) {
  return runTool(isolation, {
    command,
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    readOnly: [],
    writable: [],
    hiddenPaths: [fixture.dataDir],
    operatorHome: fixture.home,
    cwd: '/',
    timeoutMs: 10_000,
    maxOutputBytes: 1024 * 1024,
    ...overrides,
  });
}

describe.skipIf(process.platform !== 'linux')('the tool sandbox', () => {
  it('lets a hostile program read nothing of the home or the data directory, write nothing but its scratch, and reach no network', async () => {
    const scratch = path.join(fixture.base, 'scratch');
    const readable = path.join(fixture.base, 'run-files');
    mkdirSync(scratch, { mode: 0o777 });
    mkdirSync(readable);
    writeFileSync(path.join(readable, 'file.txt'), 'run file\n');
    writeFileSync(path.join(fixture.dataDir, 'ledger.sqlite'), 'LEDGER-BYTES');
    execFileSync('chmod', ['-R', 'a+rwX', scratch, readable]);
    const server = net.createServer((socket) => socket.end('host-listener\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const script = [
        `cat '${path.join(fixture.home, '.ssh', 'id_rsa')}' 2>/dev/null || echo HOME-HIDDEN`,
        `cat '${path.join(fixture.dataDir, 'ledger.sqlite')}' 2>/dev/null || echo DATA-HIDDEN`,
        `cat '${path.join(readable, 'file.txt')}'`,
        `(echo x > '${path.join(readable, 'planted')}') 2>/dev/null || echo RUN-FILES-READ-ONLY`,
        `(echo x > '${path.join(fixture.base, 'planted')}') 2>/dev/null || echo ELSEWHERE-READ-ONLY`,
        `echo ok > '${path.join(scratch, 'out')}' && echo SCRATCH-WRITABLE`,
        `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo NETWORK || echo NO-NETWORK`,
        'id -u',
        // No capability in any of the five sets, and no_new_privs.
        `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status`,
      ].join('; ');
      const result = await run(['/bin/bash', '-c', script], { readOnly: [readable], writable: [scratch] });
      const lines = result.stdout.toString('utf8').trim().split('\n');
      expect(lines).toEqual([
        'HOME-HIDDEN',
        'DATA-HIDDEN',
        'run file',
        'RUN-FILES-READ-ONLY',
        'ELSEWHERE-READ-ONLY',
        'SCRATCH-WRITABLE',
        'NO-NETWORK',
        process.getuid?.() === 0 ? '65534' : String(process.getuid?.()),
        ...['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'].map((set) => `${set}:\t0000000000000000`),
        'NoNewPrivs:\t1',
      ]);
      expect(result.stdout.toString('utf8')).not.toContain(plantedSshKey);
      expect(existsSync(path.join(fixture.base, 'planted'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it.each(['bubblewrap', 'none'] as const)('stops a tool stuck on a FIFO at its time limit, and the event loop never waits for it (%s)', async (kind) => {
    const fifo = path.join(fixture.base, 'index');
    execFileSync('mkfifo', [fifo]);
    execFileSync('chmod', ['a+rw', fifo]);
    execFileSync('chmod', ['a+rwx', fixture.base]);
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    const started = Date.now();
    const result = await runTool(kind === 'none' ? { kind: 'none' } : isolation, {
      command: ['/bin/cat', fifo],
      env: { PATH: '/usr/bin:/bin' },
      readOnly: [fixture.base],
      writable: [],
      hiddenPaths: [],
      operatorHome: fixture.home,
      cwd: '/',
      timeoutMs: 600,
      maxOutputBytes: 1024,
    });
    clearInterval(ticker);
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    // 600 ms at a 20 ms tick: the loop kept turning while the tool was stuck.
    expect(ticks).toBeGreaterThan(10);
  });

  it('cuts output at its cap and stops the tool', async () => {
    const result = await run(['/usr/bin/yes', 'flood'], { maxOutputBytes: 4096 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(4096);
    expect(result.timedOut).toBe(false);
  });
});
