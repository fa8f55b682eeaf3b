import { describe, expect, it } from 'vitest';
import { bpfMaxInstructions, seccompDeniedCalls, seccompFilter, type SeccompArch } from './seccomp';
import {
  AF_INET,
  AF_INET6,
  AF_NETLINK,
  AF_UNIX,
  AF_VSOCK,
  ALLOW,
  auditArch,
  CLONE_NEW,
  ENOSYS,
  EPERM,
  foreignArch,
  KILL_PROCESS,
  nr,
  SIGCHLD,
  TCGETS,
  threadFlags,
  TIOCGWINSZ,
  TIOCLINUX,
  TIOCSTI,
  vforkFlags,
} from './seccomp-kernel-numbers';

/**
 * The seccomp program itself, run through a small classic-BPF interpreter for both architectures (so
 * every rule is proven on x86_64 and aarch64 alike, and even where the kernel would refuse a call
 * anyway). seccomp-sandbox.test.ts loads it into a real bubblewrap, where each refused call is also
 * tried in the same sandbox without the filter to show it is the filter that refuses it;
 * seccomp-filter-file.test.ts writes the filter file and hands it over.
 */

/**
 * Every call the filter refuses whatever its arguments: the list (new namespaces, mounts,
 * ptrace, keyrings, bpf, modules, kexec, machine state, perf, userfaultfd, file handles, io_uring)
 * plus what Docker's default profile also refuses (process_madvise, pidfd_getfd, quotactl_fd,
 * vhangup, fanotify_init) and open_tree_attr, the newest mount call. Written out here, not taken
 * from the module, so that dropping a rule there fails a test.
 */
const alwaysDenied = [
  'unshare', 'setns', 'clone3',
  'mount', 'umount2', 'pivot_root', 'chroot', 'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick',
  'mount_setattr', 'open_tree_attr',
  'ptrace', 'process_vm_readv', 'process_vm_writev', 'process_madvise', 'pidfd_getfd', 'kcmp',
  'add_key', 'request_key', 'keyctl',
  'bpf', 'init_module', 'finit_module', 'delete_module', 'kexec_load', 'kexec_file_load',
  'reboot', 'swapon', 'swapoff', 'acct', 'quotactl', 'quotactl_fd', 'sethostname', 'setdomainname', 'settimeofday',
  'clock_settime', 'clock_adjtime', 'adjtimex', 'syslog', 'iopl', 'ioperm',
  'perf_event_open', 'userfaultfd', 'open_by_handle_at', 'name_to_handle_at', 'lookup_dcookie', 'vhangup', 'fanotify_init',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register',
];

/** aarch64 has no port I/O calls. */
function deniedOn(arch: SeccompArch): string[] {
  return alwaysDenied.filter((name) => arch === 'x64' || (name !== 'iopl' && name !== 'ioperm'));
}


interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function instructions(program: Buffer): Instruction[] {
  const list: Instruction[] = [];
  for (let at = 0; at < program.length; at += 8) {
    list.push({ code: program.readUInt16LE(at), jt: program.readUInt8(at + 2), jf: program.readUInt8(at + 3), k: program.readUInt32LE(at + 4) });
  }
  return list;
}

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;

/** Runs the program on one syscall the way the kernel's seccomp does, for the opcodes it uses. */
function evaluate(program: Buffer, call: { arch: number; nr: number; args?: Array<number | bigint> }): number {
  const data = Buffer.alloc(64); // struct seccomp_data
  data.writeInt32LE(call.nr | 0, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  (call.args ?? []).forEach((arg, index) => data.writeBigUInt64LE(BigInt(arg), 16 + 8 * index));
  const code = instructions(program);
  let accumulator = 0;
  let pc = 0;
  for (;;) {
    const instruction = code[pc];
    if (!instruction) throw new Error(`ran off the program at ${pc}`);
    switch (instruction.code) {
      case LD_W_ABS:
        if (instruction.k % 4 !== 0 || instruction.k + 4 > data.length) throw new Error(`bad load at ${pc}`);
        accumulator = data.readUInt32LE(instruction.k);
        pc += 1;
        break;
      case JEQ_K:
        pc += 1 + (accumulator === instruction.k ? instruction.jt : instruction.jf);
        break;
      case JSET_K:
        pc += 1 + ((accumulator & instruction.k) !== 0 ? instruction.jt : instruction.jf);
        break;
      case RET_K:
        return instruction.k;
      default:
        throw new Error(`opcode ${instruction.code} at ${pc}`);
    }
  }
}

const arches: SeccompArch[] = ['x64', 'arm64'];

describe('the seccomp program', () => {
  it('is defined for x86_64 and aarch64 only', () => {
    expect(seccompFilter('x64')).toBeInstanceOf(Buffer);
    expect(seccompFilter('arm64')).toBeInstanceOf(Buffer);
    for (const arch of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'mips64el', 'loong64', 'x32', '']) expect(seccompFilter(arch)).toBeNull();
    expect(seccompFilter()).toEqual(seccompFilter(process.arch));
  });

  it.each(arches)('on %s: checks the architecture first, fits BPF_MAXINSNS, and every jump lands inside it', (arch) => {
    const program = seccompFilter(arch)!;
    expect(program.length % 8).toBe(0);
    const code = instructions(program);
    expect(bpfMaxInstructions).toBe(4096);
    expect(code.length).toBeLessThanOrEqual(bpfMaxInstructions);

    // seccomp_data.arch, then: the expected architecture goes on, anything else is killed.
    expect(code[0]).toEqual({ code: LD_W_ABS, jt: 0, jf: 0, k: 4 });
    expect(code[1]).toMatchObject({ code: JEQ_K, jt: 0, k: auditArch[arch] });
    expect(code[2 + code[1]!.jf]).toEqual({ code: RET_K, jt: 0, jf: 0, k: KILL_PROCESS });
    // Then the syscall number.
    expect(code[2]).toEqual({ code: LD_W_ABS, jt: 0, jf: 0, k: 0 });

    code.forEach((instruction, pc) => {
      expect([LD_W_ABS, JEQ_K, JSET_K, RET_K]).toContain(instruction.code);
      if (instruction.code === LD_W_ABS) {
        expect(instruction.k % 4).toBe(0);
        expect(instruction.k + 4).toBeLessThanOrEqual(64);
      }
      if (instruction.code === JEQ_K || instruction.code === JSET_K) {
        expect(pc + 1 + instruction.jt).toBeLessThan(code.length);
        expect(pc + 1 + instruction.jf).toBeLessThan(code.length);
      }
    });
    // The kernel refuses a program that can run off its end.
    expect(code.at(-1)!.code).toBe(RET_K);
  });

  it.each(arches)('on %s: kills a process that makes a syscall through another ABI, before any other rule', (arch) => {
    const program = seccompFilter(arch)!;
    for (const name of ['read', 'keyctl', 'clone']) expect(evaluate(program, { arch: foreignArch[arch], nr: nr(arch, name) })).toBe(KILL_PROCESS);
  });

  it('refuses x32 syscalls on x86_64', () => {
    const program = seccompFilter('x64')!;
    for (const name of ['read', 'openat', 'keyctl']) expect(evaluate(program, { arch: auditArch.x64, nr: 0x40000000 | nr('x64', name) })).toBe(EPERM);
  });

  it.each(arches)("on %s: numbers every denied call as the kernel's own table does", (arch) => {
    for (const call of seccompDeniedCalls) {
      const number = call.numbers[arch];
      if (arch === 'arm64' && (call.name === 'iopl' || call.name === 'ioperm')) expect(number).toBeUndefined();
      else expect({ name: call.name, number }).toEqual({ name: call.name, number: nr(arch, call.name) });
    }
  });

  it.each(arches)('on %s: refuses every unconditionally denied call with its errno', (arch) => {
    const program = seccompFilter(arch)!;
    for (const name of deniedOn(arch)) {
      const result = evaluate(program, { arch: auditArch[arch], nr: nr(arch, name), args: [0, 0, 0, 0, 0, 0] });
      expect({ name, result }).toEqual({ name, result: name === 'clone3' ? ENOSYS : EPERM });
    }
  });

  it('lists exactly the calls it refuses, for the docs', () => {
    const always = seccompDeniedCalls.filter((call) => call.rule === 'always');
    expect(always.map((call) => call.name).sort()).toEqual([...alwaysDenied].sort());
    expect(always.filter((call) => call.errno === 'ENOSYS').map((call) => call.name)).toEqual(['clone3']);
    const conditional = seccompDeniedCalls.filter((call) => call.rule !== 'always');
    expect(Object.fromEntries(conditional.map((call) => [call.name, call.rule]))).toEqual({
      clone: 'new-namespace',
      ioctl: 'terminal-injection',
      personality: 'unsafe-personality',
      socket: 'vsock',
    });
    for (const call of seccompDeniedCalls) expect(call.why.length, call.name).toBeGreaterThan(20);
  });

  it.each(arches)('on %s: allows the calls ordinary programs make', (arch) => {
    const program = seccompFilter(arch)!;
    const ordinary = ['read', 'write', 'openat', 'execve', 'mmap', 'exit_group', 'wait4', 'prctl', 'seccomp', 'socketpair', 'getpid'];
    for (const name of ordinary) {
      const result = evaluate(program, { arch: auditArch[arch], nr: nr(arch, name), args: [0, 0, 0, 0, 0, 0] });
      expect({ name, result }).toEqual({ name, result: ALLOW });
    }
  });

  it.each(arches)('on %s: refuses clone with any new-namespace flag, and allows threads, fork and vfork', (arch) => {
    const program = seccompFilter(arch)!;
    const clone = (flags: number | bigint) =>
      evaluate(program, { arch: auditArch[arch], nr: nr(arch, 'clone'), args: [flags, 0, 0, 0, 0, 0] });
    for (const [flag, value] of Object.entries(CLONE_NEW)) {
      expect({ flag, result: clone(value | SIGCHLD) }).toEqual({ flag, result: EPERM });
      expect({ flag, result: clone(value | threadFlags) }).toEqual({ flag, result: EPERM });
    }
    expect(clone(threadFlags)).toBe(ALLOW);
    expect(clone(SIGCHLD)).toBe(ALLOW);
    expect(clone(vforkFlags)).toBe(ALLOW);
    // The kernel keeps only the low 32 bits of clone's flags, so bits above them ask for nothing.
    expect(clone((BigInt(CLONE_NEW.NEWUSER) << 32n) | BigInt(SIGCHLD))).toBe(ALLOW);
  });

  it.each(arches)('on %s: refuses TIOCSTI and TIOCLINUX, and allows other ioctls', (arch) => {
    const program = seccompFilter(arch)!;
    const ioctl = (request: number | bigint) =>
      evaluate(program, { arch: auditArch[arch], nr: nr(arch, 'ioctl'), args: [0, request, 0, 0, 0, 0] });
    expect(ioctl(TIOCSTI)).toBe(EPERM);
    expect(ioctl(TIOCLINUX)).toBe(EPERM);
    // The request is an unsigned int to the kernel: high bits do not change which ioctl it is.
    expect(ioctl(0xffffffff00000000n | BigInt(TIOCSTI))).toBe(EPERM);
    for (const request of [TCGETS, TIOCGWINSZ, 0x5414 /* TIOCSWINSZ */]) expect(ioctl(request)).toBe(ALLOW);
  });

  it.each(arches)('on %s: allows only the safe personality values', (arch) => {
    const program = seccompFilter(arch)!;
    const personality = (value: number) =>
      evaluate(program, { arch: auditArch[arch], nr: nr(arch, 'personality'), args: [value, 0, 0, 0, 0, 0] });
    for (const safe of [0xffffffff, 0x0, 0x8, 0x20000, 0x20008]) expect(personality(safe)).toBe(ALLOW);
    const READ_IMPLIES_EXEC = 0x0400000;
    const ADDR_NO_RANDOMIZE = 0x0040000;
    const ADDR_COMPAT_LAYOUT = 0x0200000;
    const MMAP_PAGE_ZERO = 0x0100000;
    for (const unsafe of [READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ADDR_COMPAT_LAYOUT, MMAP_PAGE_ZERO]) expect(personality(unsafe)).toBe(EPERM);
  });

  it.each(arches)('on %s: refuses VM sockets and allows other socket families', (arch) => {
    const program = seccompFilter(arch)!;
    const socket = (family: number) =>
      evaluate(program, { arch: auditArch[arch], nr: nr(arch, 'socket'), args: [family, 1, 0, 0, 0, 0] });
    expect(socket(AF_VSOCK)).toBe(EPERM);
    for (const family of [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK]) expect(socket(family)).toBe(ALLOW);
  });
});
