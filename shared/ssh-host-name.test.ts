import { describe, expect, it } from 'vitest';
import { parseSshHostName } from './ssh-host-name';

describe('SSH host names', () => {
  it('take what ssh takes as a destination: aliases, host names, addresses, user@host', () => {
    for (const name of ['build-box', 'gpu.internal.example.com', 'me@build-box', '192.168.1.20', '[fe80::1%eth0]', '::1', 'host_1']) {
      expect(parseSshHostName(name), name).toEqual({ ok: true, name });
    }
  });

  it('refuse what ssh would read as an option, or split, or a shell would read, saying why', () => {
    const cases: Array<[string, RegExp]> = [
      ['-oProxyCommand=touch /tmp/owned', /cannot start with “-”/],
      ['-V', /cannot start with “-”/],
      ['me@-box', /after @ cannot start with “-”/],
      ['build box', /no spaces/],
      ['build\tbox', /control characters/],
      ['build\nbox', /control characters/],
      ['build\u001b[2Jbox', /control characters/],
      ['build\u0085box', /control characters/],
      ['box;id', /only letters, digits/],
      ['$(id)', /only letters, digits/],
      ['"box"', /only letters, digits/],
      ['a@b@c', /one @/],
      ['@box', /one @/],
      ['', /Give the host’s name/],
      ['x'.repeat(301), /longer than 300/],
    ];
    for (const [name, problem] of cases) {
      const parsed = parseSshHostName(name);
      expect(parsed.ok, JSON.stringify(name)).toBe(false);
      if (!parsed.ok) expect(parsed.problem, JSON.stringify(name)).toMatch(problem);
    }
  });
});
