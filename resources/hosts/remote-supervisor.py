# The console's supervisor on an SSH host (issue 28): the agent's PTY, detached from every ssh
# connection, its output spooled to a file, its exit written beside it. Python 3's standard library
# only: nothing here needs building on the host. Modes (argv[1]):
#   prepare              stdin JSON: make the run's folders (0700), write the seccomp filter for this
#                        machine, and answer the file system facts the console builds bubblewrap's
#                        argv from (JSON on stdout); as root, hand the run's writable roots to the
#                        sandbox's user and let it read the console's files it needs
#   start DIR            stdin JSON {argv, env, cwd, cols, rows}: start the agent on a PTY in its own
#                        session under a supervisor in another, answer "started <pid>" once it listens
#   attach DIR OFFSET    the spool from OFFSET as frames on stdout until the exit, then the exit; frames
#                        on stdin (input, resize, stop) go to the supervisor while it runs
#   stop DIR GRACE_MS    asks the supervisor to stop the agent's process group (SIGTERM, SIGKILL after)
#   clean RUN_DIR        kills what is left of the run's attempts, then removes the folder
#   disk ROOT            the bytes under ROOT, per run folder
#   stores ROOT          the bytes of each project's git store under ROOT (NAME.git), links not followed
#   drop-store ROOT NAME removes the store ROOT/NAME as clean removes a run's folder (a link: only the link)
# Frames are one type byte, a 4-byte big-endian length, then the payload: D data, E exit (JSON),
# H attached, I input, R resize ("cols rows"), S stop (grace in ms as text).
import errno, fcntl, json, os, pty, select, shutil, signal, socket, struct, sys, termios, time, base64, platform

MAX_FRAME = 1 << 20


def frame(kind, payload):
    return kind + struct.pack('>I', len(payload)) + payload


def write_all(fd, data):
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        data = data[n:]


def atomic_write(path, data, mode=0o600):
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)


def real_dir(path):
    try:
        st = os.lstat(path)
    except OSError:
        return False
    import stat as st_mod
    return st_mod.S_ISDIR(st.st_mode)


def make_folder(root, folder):
    # Some folders are inside the run's writable roots (its CLI's home in its cache), where the agent
    # may have left a link: below the console's own folder no component is followed, each is made or
    # checked to be a real folder.
    import stat as st_mod
    relative = os.path.relpath(folder, root)
    if relative.startswith('..') or os.path.isabs(relative):
        raise OSError('%s is not inside %s' % (folder, root))
    path = root
    for part in [] if relative == '.' else relative.split('/'):
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            os.mkdir(path, 0o700)
            continue
        if not st_mod.S_ISDIR(st.st_mode):
            raise OSError('%s is not a folder (a link or a file is there)' % path)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def hand_over(root, top, uid, gid):
    # A root account's sandbox runs as an unprivileged user (the console's sandbox user): the run's
    # writable roots become that user's. Walked from the console's own folder down: no link is followed
    # on the way (make_folder's rule) nor inside (lchown changes a link itself, and a link to a folder is
    # not entered); the agent is not running while this is done (before its start, after its end).
    import stat as st_mod
    make_folder(root, top)
    # bubblewrap enters the view (--chdir) as root with no capability left, before it becomes that
    # user: the roots are searchable by others (no one else reaches them: the run's folder is 0700).
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, 0o701)
    finally:
        os.close(fd)
    stack = [top]
    while stack:
        path = stack.pop()
        st = os.lstat(path)
        if st.st_uid != uid or st.st_gid != gid:
            os.lchown(path, uid, gid)
        if st_mod.S_ISDIR(st.st_mode):
            with os.scandir(path) as entries:
                for entry in entries:
                    stack.append(entry.path)


def share_for_reading(root, top):
    # The console's files the sandbox's user reads but must not own (the project's objects its
    # repository borrows, the model relay): others may read them (folders also walk them). They sit in
    # the console's 0700 folder, so no one else on the host reaches them; no link is followed.
    import stat as st_mod
    relative = os.path.relpath(top, root)
    if relative.startswith('..') or os.path.isabs(relative):
        raise OSError('%s is not inside %s' % (top, root))
    stack = [top]
    while stack:
        path = stack.pop()
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if st_mod.S_ISLNK(st.st_mode):
            continue
        wanted = 0o005 if st_mod.S_ISDIR(st.st_mode) else 0o004
        if st.st_mode & wanted != wanted:
            os.chmod(path, st_mod.S_IMODE(st.st_mode) | wanted)
        if st_mod.S_ISDIR(st.st_mode):
            with os.scandir(path) as entries:
                for entry in entries:
                    stack.append(entry.path)


def prepare():
    spec = json.load(sys.stdin)
    for folder in spec['folders']:
        make_folder(spec['root'], folder)
    # Only for a root account: anyone else's sandbox runs as itself, in a user namespace.
    sandbox_user = spec.get('sandboxUser') if os.getuid() == 0 else None
    if sandbox_user:
        for folder in spec.get('handOver', []):
            hand_over(spec['root'], folder, sandbox_user['uid'], sandbox_user['gid'])
        for path in spec.get('shareForReading', []):
            share_for_reading(spec['root'], path)
    machine = platform.machine()
    seccomp = None
    filters = spec.get('seccomp', {})
    if machine in filters:
        seccomp = spec['seccompFile']
        atomic_write(seccomp, base64.b64decode(filters[machine]), 0o644)
    facts = {'machine': machine, 'seccompFile': seccomp, 'realDirectories': {}, 'realpaths': {}, 'executable': None,
             'uid': os.getuid(), 'setpriv': os.path.isfile(spec.get('setpriv', '/usr/bin/setpriv'))}
    for path in spec['directories']:
        facts['realDirectories'][path] = real_dir(path)
    for path in spec['realpaths']:
        facts['realpaths'][path] = os.path.realpath(path) if os.path.exists(path) else None
    def program(name):
        found = name if '/' in name else shutil.which(name, path=spec.get('path', ''))
        if found and os.path.isfile(found) and os.access(found, os.X_OK):
            return {'path': os.path.abspath(found), 'realpath': os.path.realpath(found)}
        return None
    if spec.get('executable'):
        facts['executable'] = program(spec['executable'])
    # Interpreters a CLI's first line may name (node for the npm-installed CLIs), wherever they are.
    facts['interpreters'] = [found for found in (program(name) for name in spec.get('interpreters', [])) if found]
    sys.stdout.write(json.dumps(facts))


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))


def start(folder):
    spec = json.load(sys.stdin)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    ready_r, ready_w = os.pipe()
    if os.fork() > 0:
        os.close(ready_w)
        answer = b''
        while True:
            chunk = os.read(ready_r, 4096)
            if not chunk:
                break
            answer += chunk
        sys.stdout.write(answer.decode() or 'failed the supervisor did not start\n')
        sys.exit(0 if answer.startswith(b'started ') else 1)
    os.close(ready_r)
    # A session of its own, away from the ssh connection's: its hangup never reaches the agent.
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    log = os.open(os.path.join(folder, 'supervisor.log'), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(log, 2)
    try:
        supervise(folder, spec, ready_w)
    except Exception as error:  # noqa: BLE001 -- the console reads why from the log or the ready pipe
        try:
            os.write(ready_w, ('failed %s\n' % error).encode())
        except OSError:
            pass
        sys.stderr.write('supervisor failed: %r\n' % (error,))
        os._exit(1)
    os._exit(0)


def supervise(folder, spec, ready_w):
    argv = spec['argv']
    env = spec['env']
    spool = os.open(os.path.join(folder, 'spool'), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    sock_path = os.path.join(folder, 'control.sock')
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # A socket's path is limited to 107 bytes: it is bound by its name in its folder.
    os.chdir(folder)
    listener.bind('control.sock')
    os.chmod(sock_path, 0o600)
    listener.listen(8)
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.chdir(spec['cwd'])
            os.execve(argv[0], argv, env)
        except OSError as error:
            os.write(2, ('operator-console: could not start %s: %s\r\n' % (argv[0], error.strerror)).encode())
        os._exit(127)
    set_size(master, spec['cols'], spec['rows'])
    atomic_write(os.path.join(folder, 'supervisor.pid'), ('%d %d\n' % (os.getpid(), pid)).encode())
    os.write(ready_w, ('started %d\n' % pid).encode())
    os.close(ready_w)

    clients = {}
    status = None
    master_open = True
    kill_at = None
    while master_open or status is None:
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
        timeout = 0.05
        if kill_at is not None:
            timeout = max(0, min(timeout, kill_at - time.monotonic()))
        readable = [listener] + list(clients)
        if master_open:
            readable.append(master)
        try:
            ready, _, _ = select.select(readable, [], [], timeout)
        except InterruptedError:
            continue
        if kill_at is not None and time.monotonic() >= kill_at:
            signal_group(pid, signal.SIGKILL)
            kill_at = None
        for item in ready:
            if item is master:
                try:
                    data = os.read(master, 65536)
                except OSError as error:
                    if error.errno != errno.EIO:
                        raise
                    data = b''
                if data:
                    write_all(spool, data)
                elif status is not None or not pid_alive(pid):
                    master_open = False
                else:
                    # EIO while the agent lives: it closed its terminal; its exit is waited for.
                    master_open = False
            elif item is listener:
                conn, _ = listener.accept()
                clients[conn] = b''
            else:
                try:
                    chunk = item.recv(65536)
                except OSError:
                    chunk = b''
                if not chunk:
                    del clients[item]
                    item.close()
                    continue
                buffer = clients[item] + chunk
                while len(buffer) >= 5:
                    kind = buffer[:1]
                    length = struct.unpack('>I', buffer[1:5])[0]
                    if length > MAX_FRAME:
                        buffer = b''
                        break
                    if len(buffer) < 5 + length:
                        break
                    payload = buffer[5:5 + length]
                    buffer = buffer[5 + length:]
                    if status is not None:
                        continue
                    if kind == b'I':
                        try:
                            write_all(master, payload)
                        except OSError:
                            pass
                    elif kind == b'R':
                        cols, rows = (int(v) for v in payload.split())
                        if 0 < cols < 10000 and 0 < rows < 10000:
                            set_size(master, cols, rows)
                    elif kind == b'S':
                        signal_group(pid, signal.SIGTERM)
                        grace = min(max(int(payload or b'0'), 0), 600000) / 1000.0
                        kill_at = time.monotonic() + grace
                if item in clients:
                    clients[item] = buffer
    # Nothing of the agent's process group outlives it.
    signal_group(pid, signal.SIGKILL)
    os.close(spool)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = 'SIG%d' % sig
        exit_value = {'exitCode': None, 'signal': name}
    else:
        exit_value = {'exitCode': os.WEXITSTATUS(status), 'signal': None}
    listener.close()
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    atomic_write(os.path.join(folder, 'exit.json'), json.dumps(exit_value).encode())


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def signal_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def control(folder):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.chdir(folder)
        sock.connect('control.sock')
    except OSError:
        return None
    return sock


def attach(folder, offset):
    out = sys.stdout.fileno()
    spool_path = os.path.join(folder, 'spool')
    exit_path = os.path.join(folder, 'exit.json')
    deadline = time.monotonic() + 30
    while not os.path.exists(spool_path):
        if time.monotonic() > deadline:
            sys.stderr.write('no spool in %s\n' % folder)
            sys.exit(3)
        time.sleep(0.02)
    spool = os.open(spool_path, os.O_RDONLY | os.O_NOFOLLOW)
    os.lseek(spool, offset, os.SEEK_SET)
    sock = control(folder)
    # Attached: the console hears it before any output (a quiet agent may print nothing for long).
    write_all(out, frame(b'H', b''))
    stdin = sys.stdin.fileno()
    pending = b''
    idle = 0.002
    position = offset
    while True:
        available = os.fstat(spool).st_size - position
        if available > 0:
            # The kernel copies the spool to ssh's pipe itself (sendfile): one frame up to 1 MiB at a time.
            count = min(available, 1 << 20)
            write_all(out, b'D' + struct.pack('>I', count))
            sent = 0
            while sent < count:
                n = os.sendfile(out, spool, position + sent, count - sent)
                if n == 0:
                    raise OSError('the spool shrank')
                sent += n
            position += count
            idle = 0.002
        elif os.path.exists(exit_path):
            # The exit is written after the last byte: what is left of the spool goes first.
            if os.fstat(spool).st_size > position:
                continue
            with open(exit_path, 'rb') as handle:
                write_all(out, frame(b'E', handle.read(4096)))
            return
        # Input is taken between frames, also during a flood (then without waiting).
        ready, _, _ = select.select([stdin], [], [], 0 if available > 0 else idle)
        if available <= 0:
            # Quiet output polls less often, up to 50 ms; input makes it fast again (its echo is due).
            idle = min(idle * 1.5, 0.05)
        if ready:
            chunk = os.read(stdin, 65536)
            if not chunk:
                # The console went away: the agent runs on, and this reader is no longer needed.
                return
            pending += chunk
            idle = 0.002
            while len(pending) >= 5:
                length = struct.unpack('>I', pending[1:5])[0]
                if len(pending) < 5 + length:
                    break
                message, pending = pending[:5 + length], pending[5 + length:]
                if sock is None:
                    sock = control(folder)
                if sock is not None:
                    try:
                        sock.sendall(message)
                    except OSError:
                        sock = None


def stop(folder, grace_ms):
    sock = control(folder)
    if sock is None:
        sys.stdout.write('not-running\n')
        return
    sock.sendall(frame(b'S', str(grace_ms).encode()))
    sock.close()
    sys.stdout.write('stopping\n')


def kill_leftovers(run_dir):
    for root, dirs, files in os.walk(run_dir):
        if 'supervisor.pid' in files and 'exit.json' not in files:
            try:
                with open(os.path.join(root, 'supervisor.pid')) as handle:
                    supervisor, agent = (int(v) for v in handle.read().split())
            except (OSError, ValueError):
                continue
            signal_group(agent, signal.SIGKILL)
            try:
                os.kill(supervisor, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        # The task root's own folders are the agent's: nothing of the console's is in them.
        dirs[:] = [d for d in dirs if d == 'attempts' or root.endswith('attempts')]


def give_back_permissions(top):
    # Folders the agent made unreadable or unwritable would keep their files from rmtree (as the
    # console's local removal does with chmod -R u+rwX). Only real folders, each checked with lstat, so
    # no link is followed; the agent is gone by now (kill_leftovers), so nothing swaps one in meanwhile.
    import stat as st_mod
    stack = [top]
    while stack:
        folder = stack.pop()
        st = os.lstat(folder)
        if not st_mod.S_ISDIR(st.st_mode):
            continue
        if st.st_mode & 0o700 != 0o700:
            os.chmod(folder, st_mod.S_IMODE(st.st_mode) | 0o700)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)


def clean(run_dir):
    if not os.path.isdir(run_dir):
        sys.stdout.write('gone\n')
        return
    kill_leftovers(run_dir)
    give_back_permissions(run_dir)
    # rmtree works through file descriptors and never follows a link the agent left.
    shutil.rmtree(run_dir)
    sys.stdout.write('removed\n')


def real_folder_below(top, path):
    # Every component from the console's folder down is a real folder (lstat, no link followed), so a
    # link planted anywhere on the way cannot lead a removal or a measure outside the console's folder.
    import stat as st_mod
    relative = os.path.relpath(path, top)
    if relative.startswith('..') or os.path.isabs(relative):
        return False
    current = top
    for part in [] if relative == '.' else relative.split('/'):
        current = os.path.join(current, part)
        try:
            if not st_mod.S_ISDIR(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return real_dir(top)


def tree_bytes(top):
    total = 0
    for base, dirs, files in os.walk(top):
        for entry in files + dirs:
            try:
                total += os.lstat(os.path.join(base, entry)).st_blocks * 512
            except OSError:
                pass
    return total


def stores(root):
    # Only real folders named NAME.git count (os.walk does not follow links below its top); anything
    # else there (a link, a file) is listed with 0 bytes, so the console may still remove it.
    sizes = {}
    if real_folder_below(os.path.dirname(root), root):
        for name in os.listdir(root):
            if not name.endswith('.git'):
                continue
            path = os.path.join(root, name)
            sizes[name[:-4]] = tree_bytes(path) if real_dir(path) else 0
    sys.stdout.write(json.dumps(sizes))


def drop_store(root, name):
    if '/' in name or name in ('', '.', '..'):
        sys.stderr.write('not a store name: %r\n' % name)
        sys.exit(2)
    path = os.path.join(root, name + '.git')
    if not real_folder_below(os.path.dirname(root), root):
        sys.stdout.write('gone\n')
        return
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        sys.stdout.write('gone\n')
        return
    import stat as st_mod
    if not st_mod.S_ISDIR(st.st_mode):
        # A link or a file where the store was: it goes, what it points to stays.
        os.unlink(path)
        sys.stdout.write('removed\n')
        return
    # The same rules as clean: permissions given back to real folders only, then rmtree, which works
    # through file descriptors and never follows a link inside.
    give_back_permissions(path)
    shutil.rmtree(path)
    sys.stdout.write('removed\n')


def disk(root):
    sizes = {}
    if os.path.isdir(root):
        for name in os.listdir(root):
            sizes[name] = tree_bytes(os.path.join(root, name))
    sys.stdout.write(json.dumps(sizes))


def main():
    mode = sys.argv[1]
    if mode == 'prepare':
        prepare()
    elif mode == 'start':
        start(sys.argv[2])
    elif mode == 'attach':
        try:
            attach(sys.argv[2], int(sys.argv[3]))
        except BrokenPipeError:
            pass
    elif mode == 'stop':
        stop(sys.argv[2], int(sys.argv[3]))
    elif mode == 'clean':
        clean(sys.argv[2])
    elif mode == 'disk':
        disk(sys.argv[2])
    elif mode == 'stores':
        stores(sys.argv[2])
    elif mode == 'drop-store':
        drop_store(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write('unknown mode %s\n' % mode)
        sys.exit(2)


os.umask(0o077)
main()
