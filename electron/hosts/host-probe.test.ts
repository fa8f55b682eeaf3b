import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maxProbeBytes, probeScript, readProbeAnswer } from './host-probe';

/**
 * Test host's answer is another machine's output: hostile input. It is read strictly, and anything
 * but the report the script prints is refused whole with a stable reason.
 */

const good = [
  'operator-console-probe 1',
  'path /usr/local/bin:/usr/bin:/bin',
  'home /home/remote',
  'cores 8',
  'home-free-kib 1048576',
  'bwrap-path /usr/bin/bwrap',
  'bwrap-version bubblewrap 0.8.0',
  'userns refused bwrap: setting up uid map: Permission denied',
  'git git version 2.39.5',
  'python Python 3.11.2',
  'uid 1000',
  'setpriv yes',
  'cli codex codex-cli 0.171.0',
  'cli claude',
  'cli pi 0.73.1',
  'cli gemini',
  'end',
  '',
].join('\n');

function answer(text: string | Buffer) {
  return () => readProbeAnswer('box', typeof text === 'string' ? Buffer.from(text) : text);
}

describe('the host probe', () => {
  it('reads the report its own script prints on a real shell, bubblewrap and git included', () => {
    const stdout = execFileSync('sh', ['-s'], { input: probeScript(), timeout: 60_000 });
    const report = readProbeAnswer('this machine', stdout);
    expect(report.bubblewrap).toMatchObject({ path: expect.stringMatching(/bwrap$/), version: expect.stringMatching(/^bubblewrap /) });
    expect(report.git?.version).toMatch(/^git version /);
    expect(report.python?.version).toMatch(/^Python 3\./);
    expect(report.cores).toBeGreaterThanOrEqual(1);
    expect(report.homeFreeBytes).toBeGreaterThan(0);
    expect(report.account).toEqual({ uid: process.getuid!(), setpriv: existsSync('/usr/bin/setpriv') });
  });

  it('reads a report, with a login shell’s greeting before it, into facts', () => {
    expect(readProbeAnswer('box', Buffer.from(`Welcome to box!\n${good}`))).toEqual({
      bubblewrap: { path: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', userNamespaces: false, refusal: 'bwrap: setting up uid map: Permission denied' },
      git: { version: 'git version 2.39.5' },
      python: { version: 'Python 3.11.2' },
      clis: [
        { id: 'codex', displayName: 'Codex CLI', executable: 'codex', version: '0.171.0', testedVersion: expect.any(String) },
        { id: 'claude-code', displayName: 'Claude Code', executable: 'claude', version: null, testedVersion: expect.any(String) },
        { id: 'pi', displayName: 'Pi', executable: 'pi', version: '0.73.1', testedVersion: expect.any(String) },
        { id: 'gemini-cli', displayName: 'Gemini CLI', executable: 'gemini', version: null, testedVersion: expect.any(String) },
      ],
      cores: 8,
      home: '/home/remote',
      homeFreeBytes: 1024 * 1024 * 1024,
      path: '/usr/local/bin:/usr/bin:/bin',
      account: { uid: 1000, setpriv: true },
    });
  });

  it('refuses anything else whole, as probe_garbled, naming what is wrong', () => {
    const garbled = { code: 'ssh_failed', reason: 'probe_garbled' };
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ['empty', '', /empty/],
      ['not the probe', 'This account is currently not available.\n', /begins “This account/],
      ['not UTF-8', Buffer.concat([Buffer.from('operator-console-probe 1\n'), Buffer.from([0xff, 0xfe, 0x0a])]), /not UTF-8/],
      ['a key it never prints', good.replace('cores 8', 'cores 8\nrun rm -rf /'), /“run rm -rf \/”/],
      ['a fact twice', good.replace('cores 8', 'cores 8\ncores 9'), /cores 9/],
      ['a CLI not asked about', good.replace('cli gemini', 'cli gemini\ncli evil 1.0.0'), /cli evil/],
      ['an escape sequence', good.replace('git git version 2.39.5', 'git \u001b]0;owned\u0007'), /line 9, “git \?]0;owned\?”/],
      ['a value too long', good.replace('home /home/remote', `home /${'x'.repeat(400)}`), /line 3/],
      ['cores that are no number', good.replace('cores 8', 'cores eight'), /cores is not a number/],
      ['a uid that is no number', good.replace('uid 1000', 'uid root'), /uid is not a number/],
      ['no end', good.replace('end\n', ''), /before its end/],
      ['more after the end', `${good}cores 2\n`, /follows its end/],
      ['too many lines before it', `${'hello\n'.repeat(60)}${good}`, /begins “hello”/],
    ];
    for (const [what, text, message] of cases) {
      expect(answer(text), what).toThrow(expect.objectContaining({ ...garbled, message: expect.stringMatching(message) }));
    }
    expect(answer(Buffer.alloc(maxProbeBytes + 1, 0x41))).toThrow(expect.objectContaining({ code: 'ssh_failed', reason: 'probe_too_large' }));
  });
});
