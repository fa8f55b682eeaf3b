import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * The seccomp filter of the Linux sandbox: a classic BPF program for `bwrap --seccomp FD`.
 *
 * bubblewrap already drops every capability, makes /proc/sys and /sys read-only and maps the run to
 * an unprivileged uid. The filter takes away what is left of the kernel's reach that an agent
 * (a shell, git, node, python, compilers, package managers, test runners) never needs: making new
 * namespaces (a user namespace hands back every capability, over a new mount and network
 * namespace), reading or writing other processes, kernel keyrings, bpf, modules, mounting, and the
 * ways around a syscall filter (io_uring, the x32 ABI, a foreign syscall ABI). The list follows
 * Docker's default profile and Codex CLI's Linux sandbox; what Docker allows and every container
 * build relies on stays allowed, so `npm install`, `git commit` and test runners work unchanged.
 *
 * Denied calls get EPERM, as if a privilege were missing (programs handle that and fall back),
 * except clone3, which gets ENOSYS so glibc falls back to clone, whose flags the filter can read.
 *
 * The program is hand-written: the one rule set is small and fixed, and a tiny assembler with
 * labels (below) computes every jump, so no offset is counted by hand.
 */

export type SeccompArch = 'x64' | 'arm64';

/** How a denied call is matched: always, or only for some arguments. */
export type SeccompRule =
  /** Refused whatever its arguments. */
  | 'always'
  /** clone: refused when its flags (arg0) ask for any new namespace. */
  | 'new-namespace'
  /** ioctl: refused for TIOCSTI and TIOCLINUX (arg1), which inject input into a terminal. */
  | 'terminal-injection'
  /** personality: refused unless arg0 is one of the values Docker allows. */
  | 'unsafe-personality'
  /** socket: refused for AF_VSOCK (arg0). */
  | 'vsock';

export interface SeccompDeniedCall {
  name: string;
  /** The syscall number per architecture; absent where that ABI has no such call. */
  numbers: Partial<Record<SeccompArch, number>>;
  rule: SeccompRule;
  errno: 'EPERM' | 'ENOSYS';
  why: string;
}

// Why each group is denied; the groups are what the docs list.
const namespaces =
  'New namespaces: a user namespace gives its creator every capability inside it, and with them ' +
  'new mount, network and other namespaces to attack the kernel from.';
const mounting =
  "Mounting and changing the root: the sandbox's mount table is its boundary, and only bubblewrap " +
  'builds it, before the filter applies.';
const otherProcesses =
  'Reaching into other processes (their memory, their file descriptors, comparing their kernel objects).';
const keyrings = "Kernel keyrings: kernel-held secrets shared beyond the sandbox, and a long history of kernel bugs.";
const kernelCode = 'Loading code into the kernel, or replacing it: bpf programs, modules, kexec.';
const systemState =
  'Changing or reading the whole machine: reboot, swap, process accounting, quotas, the hostname, ' +
  'the clock, the kernel log, raw I/O ports.';
const exploitPrimitives =
  'Calls no agent needs that kernel exploits lean on: perf events, userfaultfd, opening files by ' +
  'handle (past path permissions), lookup_dcookie, vhangup, fanotify.';
const filterBypass =
  'io_uring runs its operations without passing through seccomp, so it would carry any call past this filter.';
const clone3Why =
  'clone3 passes its flags in memory the filter cannot read; ENOSYS makes glibc fall back to clone, ' +
  'whose flags are checked.';
const terminalWhy =
  "TIOCSTI and TIOCLINUX push keystrokes into a terminal: a run could type commands into the operator's shell.";
const personalityWhy =
  'Personality flags such as READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE weaken memory protections; only ' +
  'the values Docker allows pass (the query, PER_LINUX, PER_LINUX32, UNAME26).';
const vsockWhy = 'VM sockets reach the host or hypervisor past the network namespace and the egress proxy.';

function always(name: string, x64: number | null, arm64: number | null, why: string): SeccompDeniedCall {
  const numbers: Partial<Record<SeccompArch, number>> = {};
  if (x64 !== null) numbers.x64 = x64;
  if (arm64 !== null) numbers.arm64 = arm64;
  return { name, numbers, rule: 'always', errno: 'EPERM', why };
}

/**
 * Every denied call. Numbers: x86_64 from arch/x86/entry/syscalls/syscall_64.tbl, aarch64 from the
 * generic table (include/uapi/asm-generic/unistd.h, scripts/syscall.tbl since 6.11), as in
 * linux-libc-dev 6.1 plus open_tree_attr (6.15). aarch64 has no iopl/ioperm; the calls numbered
 * 424 and above are the same on both.
 */
export const seccompDeniedCalls: readonly SeccompDeniedCall[] = [
  always('unshare', 272, 97, namespaces),
  always('setns', 308, 268, namespaces),
  { name: 'clone', numbers: { x64: 56, arm64: 220 }, rule: 'new-namespace', errno: 'EPERM', why: namespaces },
  { name: 'clone3', numbers: { x64: 435, arm64: 435 }, rule: 'always', errno: 'ENOSYS', why: clone3Why },

  always('mount', 165, 40, mounting),
  always('umount2', 166, 39, mounting),
  always('pivot_root', 155, 41, mounting),
  always('chroot', 161, 51, mounting),
  always('open_tree', 428, 428, mounting),
  always('move_mount', 429, 429, mounting),
  always('fsopen', 430, 430, mounting),
  always('fsconfig', 431, 431, mounting),
  always('fsmount', 432, 432, mounting),
  always('fspick', 433, 433, mounting),
  always('mount_setattr', 442, 442, mounting),
  always('open_tree_attr', 467, 467, mounting),

  always('ptrace', 101, 117, otherProcesses),
  always('process_vm_readv', 310, 270, otherProcesses),
  always('process_vm_writev', 311, 271, otherProcesses),
  always('process_madvise', 440, 440, otherProcesses),
  always('pidfd_getfd', 438, 438, otherProcesses),
  always('kcmp', 312, 272, otherProcesses),

  always('add_key', 248, 217, keyrings),
  always('request_key', 249, 218, keyrings),
  always('keyctl', 250, 219, keyrings),

  always('bpf', 321, 280, kernelCode),
  always('init_module', 175, 105, kernelCode),
  always('finit_module', 313, 273, kernelCode),
  always('delete_module', 176, 106, kernelCode),
  always('kexec_load', 246, 104, kernelCode),
  always('kexec_file_load', 320, 294, kernelCode),

  always('reboot', 169, 142, systemState),
  always('swapon', 167, 224, systemState),
  always('swapoff', 168, 225, systemState),
  always('acct', 163, 89, systemState),
  always('quotactl', 179, 60, systemState),
  always('quotactl_fd', 443, 443, systemState),
  always('sethostname', 170, 161, systemState),
  always('setdomainname', 171, 162, systemState),
  always('settimeofday', 164, 170, systemState),
  always('clock_settime', 227, 112, systemState),
  always('clock_adjtime', 305, 266, systemState),
  always('adjtimex', 159, 171, systemState),
  always('syslog', 103, 116, systemState),
  always('iopl', 172, null, systemState),
  always('ioperm', 173, null, systemState),

  always('perf_event_open', 298, 241, exploitPrimitives),
  always('userfaultfd', 323, 282, exploitPrimitives),
  always('open_by_handle_at', 304, 265, exploitPrimitives),
  always('name_to_handle_at', 303, 264, exploitPrimitives),
  always('lookup_dcookie', 212, 18, exploitPrimitives),
  always('vhangup', 153, 58, exploitPrimitives),
  always('fanotify_init', 300, 262, exploitPrimitives),

  always('io_uring_setup', 425, 425, filterBypass),
  always('io_uring_enter', 426, 426, filterBypass),
  always('io_uring_register', 427, 427, filterBypass),

  { name: 'ioctl', numbers: { x64: 16, arm64: 29 }, rule: 'terminal-injection', errno: 'EPERM', why: terminalWhy },
  { name: 'personality', numbers: { x64: 135, arm64: 92 }, rule: 'unsafe-personality', errno: 'EPERM', why: personalityWhy },
  { name: 'socket', numbers: { x64: 41, arm64: 198 }, rule: 'vsock', errno: 'EPERM', why: vsockWhy },
];

// <linux/audit.h>: EM_X86_64 and EM_AARCH64, each with __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE.
const auditArch: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

// <linux/seccomp.h>: struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }.
// Both supported ABIs are little-endian, so the low 32 bits of argument i are at 16 + 8 * i.
const dataNr = 0;
const dataArch = 4;
const argLow = (index: number) => 16 + 8 * index;

// <linux/seccomp.h> return values (SECCOMP_RET_KILL_PROCESS needs Linux 4.14).
const retKillProcess = 0x80000000;
const retErrno = 0x00050000;
const retAllow = 0x7fff0000;
const errnoValue = { EPERM: 1, ENOSYS: 38 } as const;

// x32 syscalls are x86_64 numbers with this bit set; they enter the same table by another door.
const x32SyscallBit = 0x40000000;

// <linux/sched.h>. clone takes its flags in arg0 on both x86_64 and arm64 (arm64 has
// CLONE_BACKWARDS, which swaps only tls and child_tid), and the kernel itself keeps only their low
// 32 bits (lower_32_bits(clone_flags)), so checking the low word is exact. CLONE_NEWTIME lies in the
// exit-signal byte of clone(2), so clone cannot ask for it (only unshare and clone3 can, and both
// are refused); refusing that bit anyway costs nothing, since signals end at 64.
const cloneNewNamespaceFlags =
  0x00020000 | // CLONE_NEWNS
  0x02000000 | // CLONE_NEWCGROUP
  0x04000000 | // CLONE_NEWUTS
  0x08000000 | // CLONE_NEWIPC
  0x10000000 | // CLONE_NEWUSER
  0x20000000 | // CLONE_NEWPID
  0x40000000 | // CLONE_NEWNET
  0x00000080; // CLONE_NEWTIME

// <asm-generic/ioctls.h>, also what x86_64 uses. ioctl's request is an unsigned int in the kernel.
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

// personality(2) values Docker's default profile allows: PER_LINUX, PER_LINUX32, UNAME26,
// UNAME26 | PER_LINUX32, and 0xffffffff, which only queries. The argument is an unsigned int.
const safePersonalities = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

// <linux/socket.h>
const AF_VSOCK = 40;

/** The most instructions the kernel accepts in one classic BPF program (BPF_MAXINSNS). */
export const bpfMaxInstructions = 4096;

// Classic BPF opcodes (<linux/bpf_common.h>): class | size | mode, class | op | source.
const BPF_LD_W_ABS = 0x00 | 0x00 | 0x20;
const BPF_JMP_JEQ_K = 0x05 | 0x10 | 0x00;
const BPF_JMP_JSET_K = 0x05 | 0x40 | 0x00;
const BPF_RET_K = 0x06 | 0x00;

/** A label, or `next` for the following instruction. */
type Target = string;
const next: Target = '';

type Line =
  | { kind: 'label'; name: string }
  | { kind: 'load'; offset: number }
  | { kind: 'jump'; code: number; k: number; ifTrue: Target; ifFalse: Target }
  | { kind: 'return'; value: number };

/** Turns lines with labels into `struct sock_filter` bytes, resolving every jump forward. */
function assemble(lines: Line[]): Buffer {
  const labels = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if (line.kind !== 'label') count += 1;
    else if (labels.has(line.name)) throw new Error(`seccomp: label ${line.name} defined twice`);
    else labels.set(line.name, count);
  }
  if (count > bpfMaxInstructions) throw new Error(`seccomp: ${count} instructions exceed BPF_MAXINSNS`);

  const program = Buffer.alloc(count * 8);
  let pc = 0;
  // Classic BPF jumps only forward, by an unsigned byte counted from the next instruction.
  const offsetTo = (target: Target): number => {
    if (target === next) return 0;
    const at = labels.get(target);
    if (at === undefined) throw new Error(`seccomp: no label ${target}`);
    const offset = at - (pc + 1);
    if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${target} out of range (${offset})`);
    return offset;
  };
  for (const line of lines) {
    if (line.kind === 'label') continue;
    const at = pc * 8;
    if (line.kind === 'load') {
      program.writeUInt16LE(BPF_LD_W_ABS, at);
      program.writeUInt32LE(line.offset, at + 4);
    } else if (line.kind === 'jump') {
      program.writeUInt16LE(line.code, at);
      program.writeUInt8(offsetTo(line.ifTrue), at + 2);
      program.writeUInt8(offsetTo(line.ifFalse), at + 3);
      program.writeUInt32LE(line.k >>> 0, at + 4);
    } else {
      program.writeUInt16LE(BPF_RET_K, at);
      program.writeUInt32LE(line.value >>> 0, at + 4);
    }
    pc += 1;
  }
  return program;
}

const label = (name: string): Line => ({ kind: 'label', name });
const load = (offset: number): Line => ({ kind: 'load', offset });
const jump =
  (code: number) =>
  (k: number, ifTrue: Target, ifFalse: Target = next): Line => ({ kind: 'jump', code, k, ifTrue, ifFalse });
/** Jumps to `ifTrue` when the accumulator equals k. */
const jumpIfEqual = jump(BPF_JMP_JEQ_K);
/** Jumps to `ifTrue` when the accumulator shares any bit with k. */
const jumpIfAnyBit = jump(BPF_JMP_JSET_K);
const ret = (value: number): Line => ({ kind: 'return', value });

function isSupportedArch(arch: string): arch is SeccompArch {
  return arch === 'x64' || arch === 'arm64';
}

/**
 * The filter for `arch` (a `process.arch` value) as `struct sock_filter[]` bytes in little-endian
 * order, for `bwrap --seccomp FD`; null where no filter is defined (the caller decides whether the
 * sandbox may run without one).
 */
export function seccompFilter(arch: string = process.arch): Buffer | null {
  if (!isSupportedArch(arch)) return null;
  const lines: Line[] = [
    // A syscall made through another ABI (int 0x80 on x86_64) has other numbers: nothing below
    // would mean what it says, so such a process is killed.
    load(dataArch),
    jumpIfEqual(auditArch[arch], next, 'kill'),
    load(dataNr),
  ];
  if (arch === 'x64') lines.push(jumpIfAnyBit(x32SyscallBit, 'eperm'));

  // One comparison per listed call: about sixty instructions, nothing next to the cost of a syscall.
  const conditional: Record<Exclude<SeccompRule, 'always'>, string> = {
    'new-namespace': 'clone-flags',
    'terminal-injection': 'ioctl-request',
    'unsafe-personality': 'personality-value',
    vsock: 'socket-family',
  };
  for (const call of seccompDeniedCalls) {
    const nr = call.numbers[arch];
    if (nr === undefined) continue;
    const target = call.rule === 'always' ? (call.errno === 'EPERM' ? 'eperm' : 'enosys') : conditional[call.rule];
    lines.push(jumpIfEqual(nr, target));
  }
  lines.push(ret(retAllow));

  // The calls refused for some arguments only; each block ends in a return.
  lines.push(label('clone-flags'), load(argLow(0)), jumpIfAnyBit(cloneNewNamespaceFlags, 'eperm', 'allow'));
  lines.push(label('ioctl-request'), load(argLow(1)), jumpIfEqual(TIOCSTI, 'eperm'), jumpIfEqual(TIOCLINUX, 'eperm', 'allow'));
  lines.push(label('personality-value'), load(argLow(0)));
  for (const value of safePersonalities) lines.push(jumpIfEqual(value, 'allow'));
  lines.push(ret(retErrno | errnoValue.EPERM));
  lines.push(label('socket-family'), load(argLow(0)), jumpIfEqual(AF_VSOCK, 'eperm', 'allow'));

  lines.push(
    label('allow'),
    ret(retAllow),
    label('eperm'),
    ret(retErrno | errnoValue.EPERM),
    label('enosys'),
    ret(retErrno | errnoValue.ENOSYS),
    label('kill'),
    ret(retKillProcess),
  );
  return assemble(lines);
}

/** The file descriptor the filter is handed to bubblewrap on (`bwrap --seccomp 3`). */
export const seccompFd = 3;

/**
 * Wraps `command` (`bwrap --seccomp 3 ... -- agent`, or `setpriv ... -- bwrap --seccomp 3 ...`) so
 * that it starts with the filter file open as fd 3. node-pty cannot hand a child extra file
 * descriptors, so a shell opens the file and execs the command: `exec cmd 3<file` keeps fd 3 open
 * across the exec (checked with dash and bash), and setpriv passes it on to bwrap. The file path is
 * the shell's `$0`, never part of the script, so no path needs quoting. It must be absolute: a
 * relative one would be opened from wherever the console spawns, which may be the run's own view.
 */
export function withSeccompFile(filterFile: string, command: string[]): string[] {
  if (!path.isAbsolute(filterFile)) throw new Error('The seccomp filter file must be an absolute path.');
  // `exec 3<file` with no command would keep the shell, exit 0, and run nothing.
  if (command.length === 0) throw new Error('A seccomp-wrapped command needs a command.');
  return ['/bin/sh', '-c', `exec "$@" ${seccompFd}<"$0"`, filterFile, ...command];
}

/**
 * Writes the filter for `arch` to `<dir>/seccomp-<arch>.bpf` (0644) and returns its path; null when
 * `arch` has no filter. The folder is created 0700 if missing. The file appears whole or not at all
 * (written under a temporary name, then renamed), and an identical file is left as it is, so
 * consoles and runs starting at once never read half a filter.
 */
export async function writeSeccompFilter(dir: string, arch: string = process.arch): Promise<string | null> {
  const program = seccompFilter(arch);
  if (!program) return null;
  const target = path.join(dir, `seccomp-${arch}.bpf`);
  const existing = await readFile(target).catch(() => null);
  if (existing?.equals(program)) return target;

  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(program);
      // open's mode is reduced by the umask. The filter is no secret, and a wrapper shell started
      // as another user (setpriv before withSeccompFile) must still be able to open it.
      await handle.chmod(0o644);
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  return target;
}
