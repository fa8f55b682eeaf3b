import { describe, expect, it } from 'vitest';
import { parseShellArgs } from './command-line';

describe('the desktop app command line', () => {
  it('reads --data-dir in both spellings, the last one winning', () => {
    expect(parseShellArgs(['.', '--data-dir', '/tmp/a'])).toEqual({ dataDir: '/tmp/a' });
    expect(parseShellArgs(['.', '--data-dir=/tmp/b'])).toEqual({ dataDir: '/tmp/b' });
    expect(parseShellArgs(['--data-dir=/tmp/a', '--data-dir', '/tmp/c'])).toEqual({ dataDir: '/tmp/c' });
  });

  it('ignores a --data-dir without a value and Chromium switches', () => {
    expect(parseShellArgs(['.', '--data-dir', '--inspect'])).toEqual({ dataDir: undefined });
    expect(parseShellArgs(['.', '--enable-logging'])).toEqual({ dataDir: undefined });
  });
});
