import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { kindAt, repositoryDirName, type RunFileTools, type TaskRoot } from './task-root-layout';
import { readRecord, toolsForRecord } from './task-root-record';
import { runTool, type ToolIsolation } from '../sandbox/tool-sandbox';

const defaultTimeoutMs = 60_000;

/**
 * A task root's disk use in bytes, measured by `du` inside the tool sandbox: `du` never follows a
 * link (not even one named on its command line) and stays on one file system, so a link or a mount
 * the agent left counts as itself and nothing more. Two passes: the run's writable roots as the run's
 * user (who can read what the run wrote), the console's own files (record, base snapshot) as the
 * console. Null when it took longer than `timeoutMs` (a tree of millions of files) or could not run.
 */
export async function measureTaskRoot(
  taskRoot: Pick<TaskRoot, 'root' | 'view' | 'tmp' | 'cache' | 'home'>,
  tools: RunFileTools,
  options: { timeoutMs?: number } = {},
): Promise<number | null> {
  if ((await kindAt(taskRoot.root)) !== 'dir') return null;
  const record = await readRecord(taskRoot.root);
  if (record) tools = toolsForRecord(tools, record);
  const runRoots = [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home, path.join(taskRoot.root, repositoryDirName)];
  const runPaths: string[] = [];
  for (const folder of runRoots) if ((await kindAt(folder)) !== 'missing') runPaths.push(folder);
  // The task root itself belongs to the console (a run never writes it): listing it is safe.
  const consolePaths = (await fs.readdir(taskRoot.root)).map((entry) => path.join(taskRoot.root, entry)).filter((entry) => !runRoots.includes(entry));

  const deadline = Date.now() + (options.timeoutMs ?? defaultTimeoutMs);
  const hiddenPaths = [path.dirname(path.dirname(taskRoot.root)), ...(record ? [record.projectPath] : [])];
  const runBytes = await diskUse(runPaths, tools.isolation, tools.operatorHome, hiddenPaths, deadline);
  if (runBytes === null) return null;
  const consoleBytes = await diskUse(consolePaths, asConsole(tools.isolation), tools.operatorHome, hiddenPaths, deadline);
  return consoleBytes === null ? null : runBytes + consoleBytes;
}

/** The console's own user inside the sandbox: its files are not the run's user's to read. */
function asConsole(isolation: ToolIsolation): ToolIsolation {
  return isolation.kind === 'bubblewrap' ? { kind: 'bubblewrap', setup: { ...isolation.setup, user: null } } : isolation;
}

const duPath = existsSync('/usr/bin/du') ? '/usr/bin/du' : '/bin/du';

async function diskUse(paths: string[], isolation: ToolIsolation, operatorHome: string, hiddenPaths: string[], deadline: number): Promise<number | null> {
  if (paths.length === 0) return 0;
  const timeoutMs = deadline - Date.now();
  if (timeoutMs <= 0) return null;
  // One du over all of them: `-c` gives one total, each inode counted once.
  const result = await runTool(isolation, {
    // -k (not GNU's -B1) so the same line works with the BSD du on macOS; -P never follows a link.
    command: [duPath, '-P', '-x', '-s', '-k', '-c', '--', ...paths],
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    readOnly: paths,
    writable: [],
    hiddenPaths,
    operatorHome,
    cwd: '/',
    timeoutMs,
    maxOutputBytes: 64 * 1024,
  });
  if (result.timedOut || result.truncated) return null;
  // A folder du could not read (exit 1) still leaves a total of the rest: a lower bound, and worth showing.
  const total = /^(\d+)\s+total\s*$/m.exec(result.stdout.toString('utf8'));
  return total ? Number(total[1]) * 1024 : null;
}
