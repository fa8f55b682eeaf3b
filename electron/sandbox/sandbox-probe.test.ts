import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { probeSandbox } from './sandbox-probe';

describe('probeSandbox', () => {
  it('says what to install when bubblewrap is missing', async () => {
    const stateDir = makeTempDir('oc-probe-').path;
    const probe = await probeSandbox({ stateDir, platform: 'linux', bwrapPath: '/nonexistent/bwrap' });
    expect(probe).toEqual({
      available: false,
      level: 'none',
      reason: '/nonexistent/bwrap was not found.',
      hint: expect.stringContaining('Install bubblewrap'),
      setup: null,
    });
  });

  it('reports an unsupported platform with a hint', async () => {
    const probe = await probeSandbox({ stateDir: makeTempDir('oc-probe-').path, platform: 'win32' });
    expect(probe.available).toBe(false);
    expect(probe.hint).toBeTruthy();
  });

  it('reports what will be used here: bubblewrap, the seccomp filter, and nobody when the console is root', async () => {
    const stateDir = makeTempDir('oc-probe-').path;
    const probe = await probeSandbox({ stateDir });
    expect(probe).toMatchObject({ available: true, level: 'bubblewrap' });
    expect(probe.setup?.seccompFile).toBe(path.join(stateDir, `seccomp-${process.arch}.bpf`));
    expect(probe.setup?.user).toEqual(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : null);
  });
});
