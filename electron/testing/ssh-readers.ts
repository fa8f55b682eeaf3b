import { readdirSync, readFileSync } from 'node:fs';

/**
 * The console's ssh processes reading a run's spool on its host (`… attach <attempt dir> <offset>`):
 * the host tests kill them, with the test sshd no longer listening, to make the host unreachable for a
 * run that is going.
 */
export function attachReaders(runId: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0] === 'ssh' && argv.some((arg) => arg.includes(' \'attach\' ') && arg.includes(runId));
      } catch {
        return false;
      }
    })
    .map(Number);
}
