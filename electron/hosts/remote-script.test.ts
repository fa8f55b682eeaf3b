import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fixedScriptCommand, remoteCommand } from './remote-script';

/**
 * sshd runs the command it is sent as `<login shell> -c <command>`, with the remote account's login
 * shell, whatever that is. These run the console's command lines exactly so, with each shell an
 * account may have (CI installs tcsh and fish), and check the script gets its arguments unchanged.
 */
const loginShells = ['/bin/sh', '/bin/bash', '/usr/bin/tcsh', '/usr/bin/fish'];

// Characters a shell could take for its own: expansions, quotes, globbing, separators, comments.
const awkward = ["it's", 'two words', '$HOME', '$(id)', '`id`', '"quoted"', '*', '~', ';', '&', '|', '%s', '{a,b}', '#', 'é ☃', ''];

function runAsLogin(shell: string, command: string) {
  const result = spawnSync(shell, ['-c', command], { encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' } });
  if (result.error) throw result.error;
  return result;
}

describe('the command lines the console sends to a host', () => {
  for (const shell of loginShells) {
    it(`reach the script unchanged when the remote login shell is ${shell}`, () => {
      const script = 'printf "[%s]\\n" "$0" "$@"';
      const result = runAsLogin(shell, fixedScriptCommand(script, awkward));
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(['operator-console', ...awkward].map((word) => `[${word}]\n`).join(''));
    });

    it(`pass plain words unchanged when the remote login shell is ${shell}`, () => {
      const result = runAsLogin(shell, remoteCommand(['printf', '[%s].', ...awkward]));
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(awkward.map((word) => `[${word}].`).join(''));
    });
  }

  it('refuses a word some shell would read otherwise (a backslash, an exclamation mark, a line break, a NUL)', () => {
    for (const word of ['a\\b', 'again!!', 'two\nlines', 'carriage\rreturn', 'nul\0']) {
      expect(() => fixedScriptCommand('true', [word])).toThrow(/will not send/);
      expect(() => remoteCommand(['echo', word])).toThrow(/will not send/);
    }
  });
});
