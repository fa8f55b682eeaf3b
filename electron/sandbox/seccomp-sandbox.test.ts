import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seccompFd, withSeccompFile, writeSeccompFilter, type SeccompArch } from './seccomp';
import { AF_UNIX, AF_VSOCK, CLONE_NEW, nr, SIGCHLD, TCGETS, TIOCSTI } from './seccomp-kernel-numbers';
import { fixtureParent, runCommand } from './test-fixtures';

/**
 * The seccomp filter loaded by a real bubblewrap: each refused call is also tried in the same sandbox
 * without the filter, to show it is the filter that refuses it (seccomp.test.ts proves the program).
 */

const scratch = { base: '', extra: [] as string[] };
beforeAll(() => {
  // Resolved: node_modules may be a link, and bubblewrap binds a path at the place it names.
  scratch.base = realpathSync(mkdtempSync(path.join(fixtureParent(), 'oc-seccomp-')));
});
afterAll(() => {
  for (const folder of [scratch.base, ...scratch.extra]) if (folder) rmSync(folder, { recursive: true, force: true });
});

// node's own folder first, so `node` and `npm` are the ones running this test.
const sandboxPath = `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
const isRoot = process.getuid?.() === 0;
const nobody = 65534;

interface Runner {
  label: string;
  /** The uid bubblewrap runs as, when the test changes it. */
  uid: number | null;
  wrap(command: string[]): string[];
}

// The console may run as root (CI does) or as a desktop user; a root console can also start bwrap
// as an unprivileged user. The same assertions hold for each.
const runners: Runner[] = [
  { label: "as the console's user", uid: null, wrap: (command) => command },
  ...(isRoot
    ? [
        {
          label: 'as nobody via setpriv',
          uid: nobody,
          wrap: (command: string[]) => ['setpriv', `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', '--', ...command],
        },
      ]
    : []),
];

interface SandboxOptions {
  seccomp: boolean;
  /** Root inside the sandbox with CAP_SYS_ADMIN and CAP_SYS_CHROOT: the most a broken sandbox could hand out. */
  privileged?: boolean;
}

/** Probes one syscall per argument: `name,nr,arg...` with `s:text` for a string and `self` for its pid. */
const probeScript = String.raw`
use strict; use warnings; use POSIX ();
for my $probe (@ARGV) {
  my ($name, $nr, @args) = split /,/, $probe, -1;
  @args = map { /^s:(.*)$/s ? "$1" : $_ eq 'self' ? $$ : $_ + 0 } @args;
  $! = 0;
  my $result = syscall($nr + 0, @args);
  my $errno = $! + 0;
  POSIX::_exit(0) if $name =~ /^clone/ && $result == 0;
  waitpid($result, 0) if $name =~ /^clone/ && $result > 0;
  print "PROBE $name $result $errno\n";
}
`;

/** What the kernel answers without the filter. */
type Unfiltered =
  /** The call works. */
  | 'succeeds'
  /** The kernel gets to the call and answers something other than EPERM (EBADF, EFAULT, ...). */
  | 'not-eperm'
  /** The kernel's own permission checks or sysctls may refuse it as well: only the program tests prove the rule. */
  | 'may-refuse';

interface Probe {
  name: string;
  call: string;
  args: Array<string | number>;
  unfiltered: Unfiltered;
  filtered: 'EPERM' | 'ENOSYS' | 'allowed';
}

const AT_FDCWD = -100;
const hostArch = process.arch as SeccompArch;

/** Syscalls tried as an unprivileged process in the sandbox, with arguments that do no harm. */
const probes: Probe[] = [
  { name: 'unshare-nothing', call: 'unshare', args: [0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'setns', call: 'setns', args: [-1, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'clone-newuser', call: 'clone', args: [CLONE_NEW.NEWUSER | SIGCHLD, 0, 0, 0, 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'clone-newuser-newnet', call: 'clone', args: [CLONE_NEW.NEWUSER | CLONE_NEW.NEWNET | SIGCHLD, 0, 0, 0, 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'clone-fork', call: 'clone', args: [SIGCHLD, 0, 0, 0, 0], unfiltered: 'succeeds', filtered: 'allowed' },
  // Without the filter the kernel reads the (missing) clone_args and says EINVAL.
  { name: 'clone3', call: 'clone3', args: [0, 0], unfiltered: 'not-eperm', filtered: 'ENOSYS' },
  { name: 'open_tree', call: 'open_tree', args: [AT_FDCWD, 's:/', 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'mount', call: 'mount', args: ['s:none', 's:/tmp', 's:tmpfs', 0, 0], unfiltered: 'may-refuse', filtered: 'EPERM' },
  { name: 'ptrace-attach', call: 'ptrace', args: [16 /* PTRACE_ATTACH */, 0x3fffffff, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'process_vm_readv', call: 'process_vm_readv', args: ['self', 0, 0, 0, 0, 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'kcmp', call: 'kcmp', args: ['self', 'self', 1 /* KCMP_VM */, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'pidfd_getfd', call: 'pidfd_getfd', args: [-1, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'keyctl', call: 'keyctl', args: [9999, 0, 0, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'add_key', call: 'add_key', args: [0, 0, 0, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'request_key', call: 'request_key', args: [0, 0, 0, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  // Before Linux 6.5 an unprivileged bpf() is refused up front when unprivileged bpf is off.
  { name: 'bpf', call: 'bpf', args: [15 /* BPF_OBJ_GET_INFO_BY_FD */, 0, 0], unfiltered: 'may-refuse', filtered: 'EPERM' },
  { name: 'init_module', call: 'init_module', args: [0, 0, 's:'], unfiltered: 'may-refuse', filtered: 'EPERM' },
  // The attribute is read before any permission check.
  { name: 'perf_event_open', call: 'perf_event_open', args: [0, 0, -1, -1, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  // UFFD_USER_MODE_ONLY is open to everyone since Linux 5.11.
  { name: 'userfaultfd', call: 'userfaultfd', args: [1], unfiltered: 'succeeds', filtered: 'EPERM' },
  // kernel.io_uring_disabled may turn it off for everyone.
  { name: 'io_uring_setup', call: 'io_uring_setup', args: [0, 0], unfiltered: 'may-refuse', filtered: 'EPERM' },
  { name: 'name_to_handle_at', call: 'name_to_handle_at', args: [AT_FDCWD, 's:/', 0, 0, 0x40000000], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'syslog', call: 'syslog', args: [10 /* SYSLOG_ACTION_SIZE_BUFFER */, 0, 0], unfiltered: 'may-refuse', filtered: 'EPERM' },
  { name: 'socket-vsock', call: 'socket', args: [AF_VSOCK, 1, 0], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'socket-unix', call: 'socket', args: [AF_UNIX, 1, 0], unfiltered: 'succeeds', filtered: 'allowed' },
  { name: 'personality-no-aslr', call: 'personality', args: [0x0040000], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'personality-query', call: 'personality', args: [0xffffffff], unfiltered: 'succeeds', filtered: 'allowed' },
  // fd 0 is /dev/null, so without the filter the kernel answers ENOTTY.
  { name: 'ioctl-tiocsti', call: 'ioctl', args: [0, TIOCSTI, 's:x'], unfiltered: 'not-eperm', filtered: 'EPERM' },
  { name: 'ioctl-tcgets', call: 'ioctl', args: [0, TCGETS, `s:${'x'.repeat(64)}`], unfiltered: 'not-eperm', filtered: 'allowed' },
  // Last: once traced, a signal would stop the process until its parent, no debugger, let it go.
  { name: 'ptrace-traceme', call: 'ptrace', args: [0 /* PTRACE_TRACEME */, 0, 0, 0], unfiltered: 'succeeds', filtered: 'EPERM' },
];

/** The same, as root with CAP_SYS_ADMIN inside the sandbox, where only the filter stands in the way. */
const privilegedProbes: Probe[] = [
  { name: 'mount', call: 'mount', args: ['s:none', 's:/tmp', 's:tmpfs', 0, 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'umount2', call: 'umount2', args: ['s:/tmp', 2 /* MNT_DETACH */], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'fsopen', call: 'fsopen', args: ['s:tmpfs', 0], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'unshare-mount', call: 'unshare', args: [CLONE_NEW.NEWNS], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'chroot', call: 'chroot', args: ['s:/'], unfiltered: 'succeeds', filtered: 'EPERM' },
  { name: 'sethostname', call: 'sethostname', args: ['s:sandbox', 7], unfiltered: 'succeeds', filtered: 'EPERM' },
];

const privilegedShellProbes = { 'mount -t tmpfs': 'mount -t tmpfs none /tmp', 'unshare -m': 'unshare -m true' };

const shellProbes = {
  'unshare -U': 'unshare -U true',
  'unshare -m': 'unshare -m true',
  'unshare -Um': 'unshare -Um true',
  'unshare -Un': 'unshare -Un true',
  'mount -t tmpfs': 'mount -t tmpfs none /tmp',
};

function shellProbeScript(commands: Record<string, string>): string {
  return Object.entries(commands)
    .map(([name, command]) => `if out=$(${command} 2>&1); then echo "SHELL ${name}: ok"; else echo "SHELL ${name}: failed: $out"; fi`)
    .join('\n');
}

/** Shell probes first, then one perl (script in $PROBE_SCRIPT) for the syscall probes, as `$@`. */
function probeCommand(commands: Record<string, string>, list: Probe[]): string[] {
  const probeArgs = list.map((probe) => [probe.name, nr(hostArch, probe.call), ...probe.args].join(','));
  return ['/bin/sh', '-c', `${shellProbeScript(commands)}\nexec perl -e "$PROBE_SCRIPT" "$@"`, 'probe', ...probeArgs];
}

/**
 * A scratch folder the runner's user can write. Under node_modules/.cache like the other fixtures;
 * in the system's temporary folder when the checkout sits below a folder that user cannot enter
 * (a clone under /root), since bubblewrap resolves bind sources as that user.
 */
function workFolder(runner: Runner): string {
  const folder = mkdtempSync(path.join(scratch.base, `work-${runner.uid ?? 'console'}-`));
  if (runner.uid === null) return folder;
  chownSync(folder, runner.uid, runner.uid);
  const as = [`--reuid=${runner.uid}`, `--regid=${runner.uid}`, '--clear-groups', '--'];
  try {
    execFileSync('setpriv', [...as, 'test', '-w', folder], { stdio: 'ignore' });
    return folder;
  } catch {
    const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'oc-seccomp-')));
    scratch.extra.push(outside);
    chownSync(outside, runner.uid, runner.uid);
    return outside;
  }
}

interface ProbeResult {
  result: number;
  errno: number;
}

function parseProbes(stdout: string): Record<string, ProbeResult> {
  const results: Record<string, ProbeResult> = {};
  for (const match of stdout.matchAll(/^PROBE (\S+) (-?\d+) (\d+)$/gm)) results[match[1]!] = { result: Number(match[2]), errno: Number(match[3]) };
  return results;
}

function parseShell(stdout: string): Record<string, string> {
  const results: Record<string, string> = {};
  for (const match of stdout.matchAll(/^SHELL (.+?): (ok|failed: .*)$/gm)) results[match[1]!] = match[2]!;
  return results;
}

const errnoEPERM = 1;
const errnoENOSYS = 38;

/** The kernel's own answer, as `unfiltered` describes it. */
function expectKernelAnswer(probe: Probe, outcome: ProbeResult | undefined) {
  expect(outcome, probe.name).toBeDefined();
  const seen = { probe: probe.name, ...outcome };
  if (probe.unfiltered === 'succeeds') expect(outcome!.result, `${probe.name} failed with errno ${outcome!.errno}`).toBeGreaterThanOrEqual(0);
  if (probe.unfiltered === 'not-eperm') expect(seen).not.toMatchObject({ result: -1, errno: errnoEPERM });
}

function expectFiltered(probe: Probe, outcome: ProbeResult | undefined) {
  if (probe.filtered === 'allowed') return expectKernelAnswer(probe, outcome);
  expect({ probe: probe.name, ...outcome }).toEqual({ probe: probe.name, result: -1, errno: probe.filtered === 'ENOSYS' ? errnoENOSYS : errnoEPERM });
}

function expectUnfiltered(probe: Probe, outcome: ProbeResult | undefined) {
  expectKernelAnswer(probe, outcome);
}

describe.skipIf(process.platform !== 'linux')('the seccomp filter in a real bubblewrap sandbox', () => {
  let filterFile: string;

  beforeAll(async () => {
    const written = await writeSeccompFilter(path.join(scratch.base, 'filters'));
    // Not a skip: on Linux the console ships a filter for this machine, and its absence must fail.
    expect(written, `no seccomp filter for ${process.arch}`).not.toBeNull();
    filterFile = written!;
  });

  for (const runner of runners) {
    describe(runner.label, () => {
      let work: string;

      beforeAll(() => {
        work = workFolder(runner);
        for (const folder of ['home', 'tmp']) mkdirSync(path.join(work, folder));
        if (runner.uid !== null) {
          for (const folder of [work, path.join(work, 'home'), path.join(work, 'tmp')]) chownSync(folder, runner.uid, runner.uid);
        }
      });

      function sandbox(options: SandboxOptions, command: string[], extraEnv: Record<string, string> = {}, timeoutMs = 30_000) {
        const bwrap = [
          'bwrap',
          '--ro-bind', '/', '/',
          '--dev', '/dev',
          '--proc', '/proc',
          '--tmpfs', '/tmp',
          '--bind', work, work,
          '--chdir', work,
          '--unshare-user', '--unshare-pid', '--unshare-net',
          '--die-with-parent',
          '--cap-drop', 'ALL',
          ...(options.privileged
            ? ['--unshare-uts', '--uid', '0', '--gid', '0', '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SYS_CHROOT']
            : []),
          ...(options.seccomp ? ['--seccomp', String(seccompFd)] : []),
          '--',
          ...command,
        ];
        // The control run differs only in `--seccomp 3`: the filter file is open on fd 3 in both.
        const [shell, ...args] = withSeccompFile(filterFile, runner.wrap(bwrap));
        // bubblewrap hands its environment to the command.
        const env = { PATH: sandboxPath, LANG: 'C.UTF-8', HOME: path.join(work, 'home'), TMPDIR: path.join(work, 'tmp'), ...extraEnv };
        return runCommand(shell!, args, env, timeoutMs);
      }

      it('runs as the intended user and can write its scratch folder', async () => {
        const result = await sandbox({ seccomp: true }, ['/bin/sh', '-c', 'id -u; touch can-write && echo WRITABLE']);
        expect(result.stderr).toBe('');
        expect(result.stdout).toContain('WRITABLE');
        if (runner.uid !== null) expect(result.stdout.split('\n')[0]).toBe(String(runner.uid));
      });

      it('refuses new namespaces, ptrace, keyrings, bpf, modules, perf, userfaultfd, io_uring and TIOCSTI', async () => {
        const command = probeCommand(shellProbes, probes);
        const [filtered, unfiltered] = await Promise.all([
          sandbox({ seccomp: true }, command, { PROBE_SCRIPT: probeScript }),
          sandbox({ seccomp: false }, command, { PROBE_SCRIPT: probeScript }),
        ]);

        const filteredShell = parseShell(filtered.stdout);
        for (const name of Object.keys(shellProbes)) {
          expect({ name, outcome: filteredShell[name] }).toEqual({ name, outcome: expect.stringMatching(/^failed: /) });
        }
        for (const name of ['unshare -U', 'unshare -m', 'unshare -Um', 'unshare -Un']) expect(filteredShell[name]).toContain('Operation not permitted');
        const filteredProbes = parseProbes(filtered.stdout);
        for (const probe of probes) expectFiltered(probe, filteredProbes[probe.name]);

        // Without the filter the same sandbox lets the namespace calls through, and the kernel
        // answers the others itself: the refusals above are the filter's. (`unshare -m` and mount
        // fail there too, for want of capabilities: the next test gives them.)
        const unfilteredShell = parseShell(unfiltered.stdout);
        for (const name of ['unshare -U', 'unshare -Um', 'unshare -Un']) {
          expect({ name, outcome: unfilteredShell[name] }).toEqual({ name, outcome: 'ok' });
        }
        const unfilteredProbes = parseProbes(unfiltered.stdout);
        for (const probe of probes) expectUnfiltered(probe, unfilteredProbes[probe.name]);
      });

      it('refuses mounts, chroot and sethostname even to root with CAP_SYS_ADMIN inside the sandbox', async () => {
        const command = probeCommand(privilegedShellProbes, privilegedProbes);
        const [filtered, unfiltered] = await Promise.all([
          sandbox({ seccomp: true, privileged: true }, command, { PROBE_SCRIPT: probeScript }),
          sandbox({ seccomp: false, privileged: true }, command, { PROBE_SCRIPT: probeScript }),
        ]);
        expect(parseShell(filtered.stdout)).toEqual({
          'mount -t tmpfs': expect.stringMatching(/^failed: .*permission denied/),
          'unshare -m': expect.stringMatching(/^failed: .*Operation not permitted/),
        });
        expect(parseShell(unfiltered.stdout)).toEqual({ 'mount -t tmpfs': 'ok', 'unshare -m': 'ok' });
        const filteredProbes = parseProbes(filtered.stdout);
        const unfilteredProbes = parseProbes(unfiltered.stdout);
        for (const probe of privilegedProbes) {
          expectFiltered(probe, filteredProbes[probe.name]);
          expectUnfiltered(probe, unfilteredProbes[probe.name]);
        }
      });

      it('lets ordinary work run: shell pipelines, node with workers and children, git commit, perl, python, npm install', async () => {
        const nodeScript =
          "const {Worker}=require('worker_threads');const fs=require('fs');const cp=require('child_process');" +
          "fs.writeFileSync('node-file.txt','written');" +
          "const worker=new Worker(\"require('worker_threads').parentPort.postMessage(6*7)\",{eval:true});" +
          'worker.on("message",async(answer)=>{' +
          "const text=await fs.promises.readFile('node-file.txt','utf8');" +
          "const child=cp.execFileSync('/bin/sh',['-c','echo child-$((1+1))']).toString().trim();" +
          "console.log('NODE',answer,text,child);});";
        const pythonScript =
          'import subprocess, threading\n' +
          'results = []\n' +
          't = threading.Thread(target=lambda: results.append(6 * 7)); t.start(); t.join()\n' +
          "print('PYTHON', results[0], subprocess.run(['sh', '-c', 'echo sub'], capture_output=True, text=True).stdout.strip())\n";
        const script = [
          "printf 'b\\na\\nc\\n' | sort | head -n 2 | tr a-z A-Z | tr '\\n' ' ' | sed 's/^/PIPE /'; echo",
          'node -e "$NODE_SCRIPT"',
          'git init -q -b main repo && cd repo && echo hello > file.txt && git add file.txt && ' +
            'git -c user.name=Agent -c user.email=agent@example.invalid commit -q -m first && echo "GIT $(git rev-list --count HEAD)"; cd ..',
          `perl -e 'my $pid = fork(); exit 0 if $pid == 0; waitpid($pid, 0); print "PERL ", 6 * 7, "\\n"'`,
          'if command -v python3 >/dev/null; then python3 -c "$PYTHON_SCRIPT"; else echo "PYTHON absent"; fi',
          'mkdir -p lib app && echo \'{"name":"lib","version":"1.0.0"}\' > lib/package.json && echo "module.exports = 42" > lib/index.js && ' +
            'echo \'{"name":"app","version":"1.0.0","dependencies":{"lib":"file:../lib"}}\' > app/package.json && ' +
            'cd app && npm install --offline --no-audit --no-fund --loglevel=error >/dev/null && node -e \'console.log("NPM", require("lib"))\'',
        ].join('\n');
        const result = await sandbox(
          { seccomp: true },
          ['/bin/sh', '-c', script],
          { NODE_SCRIPT: nodeScript, PYTHON_SCRIPT: pythonScript },
          60_000,
        );
        expect(result.stderr).toBe('');
        const lines = result.stdout.trim().split('\n');
        expect(lines).toContain('PIPE A B ');
        expect(lines).toContain('NODE 42 written child-2');
        expect(lines).toContain('GIT 1');
        expect(lines).toContain('PERL 42');
        expect(lines.some((line) => line === 'PYTHON 42 sub' || line === 'PYTHON absent')).toBe(true);
        expect(lines).toContain('NPM 42');
        expect(result.code).toBe(0);
      }, 90_000);

      it('hands bubblewrap the filter: a sandboxed process reports one seccomp filter', async () => {
        const result = await sandbox({ seccomp: true }, ['/bin/sh', '-c', "grep -E '^Seccomp(_filters)?:' /proc/self/status"]);
        expect(result.stdout).toMatch(/^Seccomp:\s+2$/m);
        expect(result.stdout).toMatch(/^Seccomp_filters:\s+1$/m);
        const control = await sandbox({ seccomp: false }, ['/bin/sh', '-c', "grep -E '^Seccomp:' /proc/self/status"]);
        expect(control.stdout).toMatch(/^Seccomp:\s+0$/m);
      });
    });
  }
});
