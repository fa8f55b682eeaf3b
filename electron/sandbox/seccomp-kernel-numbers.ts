import type { SeccompArch } from './seccomp';

/** The kernel's numbers the seccomp tests use (seccomp.test.ts, seccomp-sandbox.test.ts). */

// Syscall numbers copied from the kernel's own tables (linux-libc-dev 6.1: asm/unistd_64.h for
// x86_64, asm-generic/unistd.h for aarch64; open_tree_attr from scripts/syscall.tbl, Linux 6.15),
// kept apart from the module's table so that a wrong number in either shows up as a difference.
const kernelTables: Record<SeccompArch, Record<string, number>> = {
  x64: parseTable(`
    unshare=272 setns=308 clone=56 clone3=435 mount=165 umount2=166 pivot_root=155 chroot=161
    open_tree=428 move_mount=429 fsopen=430 fsconfig=431 fsmount=432 fspick=433 mount_setattr=442 open_tree_attr=467
    ptrace=101 process_vm_readv=310 process_vm_writev=311 process_madvise=440 pidfd_getfd=438 kcmp=312
    add_key=248 request_key=249 keyctl=250 bpf=321 init_module=175 finit_module=313 delete_module=176
    kexec_load=246 kexec_file_load=320 reboot=169 swapon=167 swapoff=168 acct=163 quotactl=179
    quotactl_fd=443 sethostname=170 setdomainname=171 settimeofday=164 clock_settime=227
    clock_adjtime=305 adjtimex=159 syslog=103 iopl=172 ioperm=173 perf_event_open=298 userfaultfd=323
    open_by_handle_at=304 name_to_handle_at=303 lookup_dcookie=212 vhangup=153 fanotify_init=300
    io_uring_setup=425 io_uring_enter=426 io_uring_register=427 ioctl=16 personality=135 socket=41
    read=0 write=1 openat=257 execve=59 mmap=9 exit_group=231 wait4=61 prctl=157 seccomp=317
    socketpair=53 getpid=39`),
  arm64: parseTable(`
    unshare=97 setns=268 clone=220 clone3=435 mount=40 umount2=39 pivot_root=41 chroot=51
    open_tree=428 move_mount=429 fsopen=430 fsconfig=431 fsmount=432 fspick=433 mount_setattr=442 open_tree_attr=467
    ptrace=117 process_vm_readv=270 process_vm_writev=271 process_madvise=440 pidfd_getfd=438 kcmp=272
    add_key=217 request_key=218 keyctl=219 bpf=280 init_module=105 finit_module=273 delete_module=106
    kexec_load=104 kexec_file_load=294 reboot=142 swapon=224 swapoff=225 acct=89 quotactl=60
    quotactl_fd=443 sethostname=161 setdomainname=162 settimeofday=170 clock_settime=112
    clock_adjtime=266 adjtimex=171 syslog=116 perf_event_open=241 userfaultfd=282 open_by_handle_at=265
    name_to_handle_at=264 lookup_dcookie=18 vhangup=58 fanotify_init=262 io_uring_setup=425
    io_uring_enter=426 io_uring_register=427 ioctl=29 personality=92 socket=198 read=63 write=64
    openat=56 execve=221 mmap=222 exit_group=94 wait4=260 prctl=167 seccomp=277
    socketpair=199 getpid=172`),
};

function parseTable(text: string): Record<string, number> {
  return Object.fromEntries(
    text
      .trim()
      .split(/\s+/)
      .map((entry) => {
        const [name, nr] = entry.split('=');
        return [name!, Number(nr)];
      }),
  );
}

export function nr(arch: SeccompArch, name: string): number {
  const value = kernelTables[arch][name];
  if (value === undefined) throw new Error(`no ${arch} number for ${name} in the test's table`);
  return value;
}

// <linux/audit.h>, <linux/seccomp.h>: written out again here rather than imported.
export const auditArch: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
export const foreignArch: Record<SeccompArch, number> = { x64: 0x40000003 /* i386 */, arm64: 0x40000028 /* arm */ };
export const ALLOW = 0x7fff0000;
export const EPERM = 0x00050000 | 1;
export const ENOSYS = 0x00050000 | 38;
export const KILL_PROCESS = 0x80000000;

export const CLONE_NEW = {
  NEWNS: 0x00020000,
  NEWCGROUP: 0x02000000,
  NEWUTS: 0x04000000,
  NEWIPC: 0x08000000,
  NEWUSER: 0x10000000,
  NEWPID: 0x20000000,
  NEWNET: 0x40000000,
  NEWTIME: 0x00000080,
};
export const SIGCHLD = 17;
// What glibc's pthread_create and posix_spawn pass to clone.
export const threadFlags = 0x003d0f00; // VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
export const vforkFlags = 0x00004100 | SIGCHLD; // VM|VFORK
export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
export const TCGETS = 0x5401;
export const TIOCGWINSZ = 0x5413;
export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_NETLINK = 16;
export const AF_VSOCK = 40;
