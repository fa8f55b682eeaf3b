import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openLedger } from '../ledger/ledger';
import { LedgerDamagedError } from '../ledger/ledger-damage';
import { makeTempDir } from '../testing/temp-dir';
import { ensureConsoleBuilt, serviceEntry } from '../testing/built-console';
import { createMemoryLogger } from '../platform/log';
import { attachOrStartService, processGone, ServiceStartError } from '../service/service-launcher';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

const { offerLedgerRestore, offerLedgerRestoreForService } = await import('./damaged-ledger-dialog');

const cleanups: Array<() => unknown> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

/** The app and dialog as the dialog sees them, recording what it did. */
function shellStandIn(response: number) {
  const calls: string[] = [];
  const boxes: Array<Record<string, unknown>> = [];
  const shell = {
    app: { relaunch: () => void calls.push('relaunch'), exit: (code?: number) => void calls.push(`exit ${code}`) },
    dialog: {
      showMessageBox: (box: Record<string, unknown>) => {
        boxes.push(box);
        return Promise.resolve({ response, checkboxChecked: false });
      },
      showErrorBox: (title: string, content: string) => void boxes.push({ title, content }),
    },
  };
  return { shell: shell as unknown as NonNullable<Parameters<typeof offerLedgerRestore>[1]['shell']>, calls, boxes };
}

/** A real data directory whose ledger was backed up and then went bad; the error the core's start threw. */
async function damaged(withBackup: boolean): Promise<{ dataDir: string; error: LedgerDamagedError; garbage: Buffer }> {
  const temp = makeTempDir('oc-damaged-dialog-');
  cleanups.push(temp.remove);
  const ledger = openLedger(temp.path);
  ledger.db.prepare("INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES ('prj_kept', 'kept', '/srv/kept', 0, 1)").run();
  if (withBackup) await ledger.backups.takeDaily(ledger.db, Date.now());
  ledger.close();
  const garbage = randomBytes(16 * 1024);
  writeFileSync(path.join(temp.path, 'ledger.sqlite'), garbage);
  try {
    openLedger(temp.path);
  } catch (error) {
    return { dataDir: temp.path, error: error as LedgerDamagedError, garbage };
  }
  throw new Error('the damaged ledger opened');
}

describe('the damaged-ledger dialog (desktop app)', () => {
  it('offers Restore newest backup, which restores it, gives the data directory up and relaunches', async () => {
    const { dataDir, error, garbage } = await damaged(true);
    const { shell, calls, boxes } = shellStandIn(0);
    const releaseDataDir = vi.fn(() => Promise.resolve(calls.push('release')).then(() => undefined));
    await expect(offerLedgerRestore(error, { dataDir, releaseDataDir, shell })).resolves.toBe('restored');
    expect(boxes[0]).toMatchObject({ type: 'error', message: 'The console’s ledger is damaged', buttons: ['Restore newest backup', 'Quit'], cancelId: 1 });
    expect(boxes[0]!.detail).toContain(`The ledger ${path.join(dataDir, 'ledger.sqlite')} is damaged`);
    expect(boxes[0]!.detail).toContain(error.newestBackup!.file);
    expect(calls).toEqual(['release', 'relaunch', 'exit 0']);
    // The relaunched console finds the backup's ledger; the damaged one is kept beside it.
    const ledger = openLedger(dataDir);
    expect(ledger.projects.list().map((project) => project.name)).toEqual(['kept']);
    ledger.close();
    const kept = readdirSync(dataDir).find((name) => name.startsWith('ledger.sqlite.before-restore-'));
    expect(readFileSync(path.join(dataDir, kept!)).equals(garbage)).toBe(true);
  });

  it('quits and changes nothing when the operator chooses Quit', async () => {
    const { dataDir, error, garbage } = await damaged(true);
    const { shell, calls } = shellStandIn(1);
    await expect(offerLedgerRestore(error, { dataDir, releaseDataDir: () => Promise.resolve(), shell })).resolves.toBe('quit');
    expect(calls).toEqual(['exit 1']);
    expect(readFileSync(path.join(dataDir, 'ledger.sqlite')).equals(garbage)).toBe(true);
  });

  it('has only Quit, and says how to start afresh, when there is no backup', async () => {
    const { dataDir, error } = await damaged(false);
    const { shell, calls, boxes } = shellStandIn(0);
    await expect(offerLedgerRestore(error, { dataDir, releaseDataDir: () => Promise.resolve(), shell })).resolves.toBe('quit');
    expect(boxes[0]).toMatchObject({ buttons: ['Quit'] });
    expect(boxes[0]!.detail).toContain('There is no backup of it');
    expect(calls).toEqual(['exit 1']);
  });
});

describe('the damaged-ledger dialog, through the console service', () => {
  beforeAll(ensureConsoleBuilt, 120_000);

  it('offers the restore when the service refuses a damaged ledger, and the console then starts on the backup', async () => {
    const { dataDir } = await damaged(true);
    const start = { dataDir, port: 0, serviceEntry, env: { ...process.env, OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES: '0' } };
    const refused = await attachOrStartService({ ...start, client: 'desktop-app' }).then(
      () => undefined,
      (error: unknown) => error as ServiceStartError,
    );
    expect(refused).toBeInstanceOf(ServiceStartError);
    expect(refused!.message).toMatch(/^Operator Console: The ledger .*ledger\.sqlite is damaged and cannot be read/);
    expect(refused!.ledgerDamaged?.newestBackup).toMatch(/backups/);

    const { shell, calls, boxes } = shellStandIn(0);
    await expect(offerLedgerRestoreForService({ message: refused!.message, ledgerDamaged: refused!.ledgerDamaged! }, { dataDir, log: createMemoryLogger(), shell })).resolves.toBe('restored');
    expect(boxes[0]).toMatchObject({ message: 'The console’s ledger is damaged', buttons: ['Restore newest backup', 'Quit'] });
    expect(boxes[0]!.detail).toMatch(/^The ledger .*ledger\.sqlite is damaged/);
    expect(calls).toEqual(['relaunch', 'exit 0']);

    // The relaunched app starts the service on the restored ledger.
    const attached = await attachOrStartService({ ...start, client: 'desktop-app' });
    try {
      expect((await attached.connection.call('listProjects')).map((project) => project.name)).toEqual(['kept']);
    } finally {
      await attached.connection.control('stop');
      await attached.connection.close();
      await processGone(attached.connection.welcome.pid, 15_000);
    }
  }, 60_000);
});
