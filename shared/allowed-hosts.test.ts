import { describe, expect, it } from 'vitest';
import { allowedHostMatches, allowedHostPresets, canonicalAllowedHosts, displayHost, isRequestHost, parseAllowedHost } from './allowed-hosts';

const parsed = (text: string) => {
  const result = parseAllowedHost(text);
  if (!result.ok) throw new Error(`${text}: ${result.problem}`);
  return result;
};
const problem = (text: string) => {
  const result = parseAllowedHost(text);
  if (result.ok) throw new Error(`${text} was accepted as ${result.text}`);
  return result.problem;
};

describe('allowed host entries', () => {
  it('take a host (HTTPS, port 443) or host:port, and read back in one canonical form', () => {
    expect(parsed('registry.npmjs.org')).toMatchObject({ entry: { host: 'registry.npmjs.org', port: 443 }, text: 'registry.npmjs.org' });
    expect(parsed('  PyPI.org. ')).toMatchObject({ entry: { host: 'pypi.org', port: 443 }, text: 'pypi.org' });
    expect(parsed('pypi.internal:8080')).toMatchObject({ entry: { host: 'pypi.internal', port: 8080 }, text: 'pypi.internal:8080' });
    expect(parsed('github.com:443').text).toBe('github.com');
    expect(parsed('127.0.0.1:4873')).toMatchObject({ entry: { host: '127.0.0.1', port: 4873 } });
    expect(parsed('[::1]:8080')).toMatchObject({ entry: { host: '::1', port: 8080 }, text: '[::1]:8080' });
    expect(parsed('[0:0:0:0:0:0:0:1]').text).toBe('[::1]');
    // A Unicode name is kept as the resolver sees it.
    expect(parsed('bücher.example').text).toBe('xn--bcher-kva.example');
  });

  it('refuse a bare *, schemes, paths, credentials, spaces and bad ports, each saying what to write instead', () => {
    expect(problem('*')).toMatch(/every host.*Open network/);
    expect(problem('*:443')).toMatch(/every host/);
    expect(problem('https://registry.npmjs.org')).toMatch(/without http:\/\/ or https:\/\//);
    expect(problem('git+ssh://github.com')).toMatch(/without http/);
    expect(problem('github.com/org/repo')).toMatch(/without a path/);
    expect(problem('github.com?x=1')).toMatch(/without a path/);
    expect(problem('user:pw@github.com')).toMatch(/user name or password/);
    expect(problem('registry npmjs org')).toMatch(/no spaces/);
    expect(problem('registry.npmjs.org:0')).toMatch(/port/);
    expect(problem('registry.npmjs.org:65536')).toMatch(/port/);
    expect(problem('registry.npmjs.org:http')).toMatch(/port/);
    expect(problem('::1')).toMatch(/brackets/);
    expect(problem('[::g]')).toMatch(/not an IPv6/);
    expect(problem('exa$mple.com')).toMatch(/not a host name/);
    expect(problem('-leading.example')).toMatch(/not a host name/);
    expect(problem('127.1')).toMatch(/not a host name/);
    expect(problem('')).toMatch(/Enter a host/);
    expect(problem(`${'a'.repeat(64)}.example`)).toMatch(/not a host name/);
  });

  it('allow a *. suffix wildcard under a domain, never a top-level one, never inside a name, never for addresses', () => {
    expect(parsed('*.example.com')).toMatchObject({ entry: { host: '*.example.com', port: 443 } });
    expect(problem('*.com')).toMatch(/top-level domain/);
    expect(problem('a.*.example.com')).toMatch(/not a host name|Only a leading/);
    expect(problem('*example.com')).toMatch(/not a host name|Only a leading/);
    expect(problem('*.*.example.com')).toMatch(/Only a leading/);
    expect(problem('*.10.0.0.1')).toMatch(/not addresses/);
  });

  it('match a wildcard below its domain only, and exact entries exactly, port included', () => {
    const wildcard = parsed('*.example.com').entry;
    expect(allowedHostMatches(wildcard, 'a.example.com', 443)).toBe(true);
    expect(allowedHostMatches(wildcard, 'a.b.example.com', 443)).toBe(true);
    expect(allowedHostMatches(wildcard, 'example.com', 443)).toBe(false);
    expect(allowedHostMatches(wildcard, 'evilexample.com', 443)).toBe(false);
    expect(allowedHostMatches(wildcard, 'example.com.evil.test', 443)).toBe(false);
    expect(allowedHostMatches(wildcard, 'a.example.com', 80)).toBe(false);
    const exact = parsed('registry.npmjs.org').entry;
    expect(allowedHostMatches(exact, 'REGISTRY.npmjs.org.', 443)).toBe(true);
    expect(allowedHostMatches(exact, 'registry.npmjs.org.evil.test', 443)).toBe(false);
    expect(allowedHostMatches(exact, 'registry.npmjs.org', 80)).toBe(false);
  });

  it('clean a list into canonical entries, each once', () => {
    expect(canonicalAllowedHosts(['GitHub.com', 'github.com:443', 'pypi.org', 'https://bad', 'pypi.org:8080'])).toEqual(['github.com', 'pypi.org', 'pypi.org:8080']);
  });

  it('offer the presets the issue names, every host of them valid', () => {
    expect(allowedHostPresets.map((preset) => preset.label)).toEqual(['npm registry', 'PyPI', 'crates.io', 'Go module proxy', 'GitHub over HTTPS', 'GitLab over HTTPS']);
    for (const preset of allowedHostPresets) for (const host of preset.hosts) expect(parsed(host).text).toBe(host);
  });
});

describe('hosts a run asked for', () => {
  it('are names or addresses, nothing else', () => {
    expect(isRequestHost('registry.npmjs.org')).toBe(true);
    expect(isRequestHost('127.0.0.1')).toBe(true);
    expect(isRequestHost('::1')).toBe(true);
    expect(isRequestHost('evil\u001b[31m.example')).toBe(false);
    expect(isRequestHost('a b')).toBe(false);
    expect(isRequestHost('')).toBe(false);
  });

  it('are shown with every character that is not part of a host escaped visibly, and cut to a page-sized length', () => {
    expect(displayHost('registry.npmjs.org')).toBe('registry.npmjs.org');
    expect(displayHost('evil\u001b[2Jhost')).toBe('evil\\u{1b}[2Jhost');
    expect(displayHost('pay\u202epal.example')).toBe('pay\\u{202e}pal.example');
    expect(displayHost('csi\u009b31m')).toBe('csi\\u{9b}31m');
    const long = displayHost('a'.repeat(10_000));
    expect(long).toHaveLength(255);
    expect(long.endsWith('…')).toBe(true);
    // What the proxy recorded is shown through it again: it reads the same.
    for (const raw of ['evil\u001b[2Jhost', 'pay\u202epal.example', 'a'.repeat(10_000), `${'\u001b'.repeat(100)}x`]) expect(displayHost(displayHost(raw))).toBe(displayHost(raw));
  });
});
