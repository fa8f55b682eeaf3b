import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../shared/entities';
import { allowedHosts, emptyEnvironmentForm, environmentFormFromEnvironment, environmentFormProblems, environmentInput, environmentUpdate } from './environment-form';

const builds: Environment = {
  id: 'env_1',
  name: 'Node builds',
  kind: 'sandboxed',
  networkMode: 'provider-only',
  requiresConnection: true,
  allowedHosts: ['registry.npmjs.org', 'github.com', 'codeload.github.com', 'objects.githubusercontent.com', '127.0.0.1:4873', 'pypi.org'],
  builtIn: false,
  hostId: null,
};

describe('the environment form', () => {
  it('shows allowed hosts as ticked presets (every host of one allowed) and the other hosts, one per line', () => {
    const values = environmentFormFromEnvironment(builds);
    expect(values.presets).toEqual(['npm', 'github']);
    // PyPI needs files.pythonhosted.org too: pypi.org alone is one of the others.
    expect(values.otherHosts).toBe('127.0.0.1:4873\npypi.org\n');
    expect(allowedHosts(values)).toEqual(['registry.npmjs.org', 'github.com', 'codeload.github.com', 'objects.githubusercontent.com', '127.0.0.1:4873', 'pypi.org']);
  });

  it('adds the host a blocked request named at the end of the other hosts, once', () => {
    expect(environmentFormFromEnvironment(builds, '127.0.0.1:5000').otherHosts).toBe('127.0.0.1:4873\npypi.org\n127.0.0.1:5000\n');
    expect(environmentFormFromEnvironment(builds, 'pypi.org').otherHosts).toBe('127.0.0.1:4873\npypi.org\n');
    expect(environmentFormFromEnvironment({ ...builds, allowedHosts: [] }, 'crates.io').otherHosts).toBe('crates.io\n');
    // What is not a host never reaches the form.
    expect(environmentFormFromEnvironment({ ...builds, allowedHosts: [] }, 'https://x/y').otherHosts).toBe('');
  });

  it('names the line of a host that is not one, and the name when it is missing', () => {
    const values = { ...emptyEnvironmentForm(), otherHosts: 'pypi.org\n\nhttps://files.pythonhosted.org\n' };
    expect(environmentFormProblems(values)).toEqual({
      name: 'Give the environment a name.',
      otherHosts: 'Line 2, “https://files.pythonhosted.org”: Write the host alone, without http:// or https://, e.g. registry.npmjs.org.',
    });
    expect(environmentFormProblems({ ...values, name: 'x', otherHosts: '*' }).otherHosts).toMatch(/^“\*”: A bare \* would allow every host/);
    // Hosts are only checked where they apply: None and Open keep them without sending them through the proxy.
    expect(environmentFormProblems({ ...values, name: 'x', networkMode: 'none' })).toEqual({});
  });

  it('sends a local environment as open with no hosts, and a sandboxed one always needing a managed connection', () => {
    const values = { ...environmentFormFromEnvironment(builds), kind: 'local' as const, requiresConnection: false };
    expect(environmentInput(values)).toEqual({ name: 'Node builds', kind: 'local', networkMode: 'open', allowedHosts: [], requiresConnection: false, hostId: null });
    expect(environmentInput({ ...emptyEnvironmentForm(), name: ' New ', requiresConnection: false, presets: ['pypi'] })).toEqual({
      name: 'New',
      kind: 'sandboxed',
      networkMode: 'provider-only',
      allowedHosts: ['pypi.org', 'files.pythonhosted.org'],
      requiresConnection: true,
      hostId: null,
    });
  });

  it('sends only what an edit changed', () => {
    expect(environmentUpdate(builds, environmentFormFromEnvironment(builds))).toBeNull();
    expect(environmentUpdate(builds, environmentFormFromEnvironment(builds, '127.0.0.1:5000'))).toEqual({
      environmentId: 'env_1',
      allowedHosts: [...builds.allowedHosts, '127.0.0.1:5000'],
    });
    expect(environmentUpdate(builds, { ...environmentFormFromEnvironment(builds), networkMode: 'open' })).toEqual({ environmentId: 'env_1', networkMode: 'open' });
    // An SSH host chosen, and back to this machine.
    expect(environmentUpdate(builds, { ...environmentFormFromEnvironment(builds), hostId: 'hst_1' })).toEqual({ environmentId: 'env_1', hostId: 'hst_1' });
    expect(environmentUpdate({ ...builds, hostId: 'hst_1' }, { ...environmentFormFromEnvironment(builds), hostId: null })).toEqual({ environmentId: 'env_1', hostId: null });
  });
});
