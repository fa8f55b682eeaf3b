import { describe, expect, it } from 'vitest';
import { resolveDataDir } from './data-dir';

describe('the data directory', () => {
  it('prefers --data-dir, then OPERATOR_CONSOLE_DATA_DIR, then Electron userData, then a per-user default', () => {
    const env = { OPERATOR_CONSOLE_DATA_DIR: '/from/env' };
    expect(resolveDataDir({ flag: '/from/flag', env, electronUserData: '/from/electron' })).toBe('/from/flag');
    expect(resolveDataDir({ env, electronUserData: '/from/electron' })).toBe('/from/env');
    expect(resolveDataDir({ env: {}, electronUserData: '/from/electron' })).toBe('/from/electron');
    expect(resolveDataDir({ env: {}, platform: 'linux', home: '/home/op' })).toBe('/home/op/.local/share/operator-console');
    expect(resolveDataDir({ env: { XDG_DATA_HOME: '/xdg' }, platform: 'linux', home: '/home/op' })).toBe('/xdg/operator-console');
    expect(resolveDataDir({ env: {}, platform: 'darwin', home: '/Users/op' })).toBe('/Users/op/Library/Application Support/Operator Console');
  });
});
