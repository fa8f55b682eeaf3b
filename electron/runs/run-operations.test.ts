import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../shared/errors';
import { RunOperations } from './run-operations';

describe('one change to a run at a time', () => {
  it('refuses a second change while the first is under way, saying what and for how long, and takes changes again once it is done, failed or not', async () => {
    let now = 1_000;
    const operations = new RunOperations(() => now);
    let finish!: () => void;
    const landing = operations.exclusive('run_a', 'land', () => new Promise<string>((resolve) => (finish = () => resolve('landed'))));
    now += 3_000;
    const refused = await operations.exclusive('run_a', 'discard', () => Promise.resolve('discarded')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OperatorError);
    expect((refused as OperatorError).toShape()).toEqual({
      code: 'run_busy',
      reason: 'land',
      message: 'The console is already landing this run (for 3 s now), so this request was not carried out. Wait for that to finish, then look at the run again.',
    });
    // Another run is not held up.
    await expect(operations.exclusive('run_b', 'commit', () => Promise.resolve('committed'))).resolves.toBe('committed');
    finish();
    await expect(landing).resolves.toBe('landed');

    await expect(operations.exclusive('run_a', 'push', () => Promise.reject(new Error('git could not reach origin')))).rejects.toThrow('git could not reach origin');
    expect(operations.underWay('run_a')).toBeNull();
    await expect(operations.exclusive('run_a', 'push', () => Promise.resolve('pushed'))).resolves.toBe('pushed');
  });

  it('holds every run of a landing that discards others, and names the other run that is busy', async () => {
    const operations = new RunOperations(() => 0);
    let finish!: () => void;
    const cleaning = operations.exclusive('run_b', 'clean_up', () => new Promise<void>((resolve) => (finish = resolve)));
    const refused = await operations.exclusive(['run_a', 'run_b'], 'land', () => Promise.resolve()).catch((error: unknown) => error as OperatorError);
    expect(refused).toMatchObject({ code: 'run_busy', reason: 'clean_up' });
    expect((refused as OperatorError).message).toMatch(/^The console is already removing the files of another run this request names \(run_b\)/);
    // Refused as a whole: the run to land was not taken either.
    expect(operations.underWay('run_a')).toBeNull();
    finish();
    await cleaning;
    let during: Array<string | null> = [];
    await operations.exclusive(['run_a', 'run_b'], 'land', () => {
      during = [operations.underWay('run_a'), operations.underWay('run_b')];
      return Promise.resolve();
    });
    expect(during).toEqual(['land', 'land']);
  });
});
