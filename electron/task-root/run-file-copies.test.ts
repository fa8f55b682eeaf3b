import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { copyProjectFiles } from './run-file-copies';

const temps: Array<{ remove(): void }> = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

/** A project folder, a task root with an empty view, and a folder outside both holding a secret. */
function layout() {
  const temp = makeTempDir('oc-copies-');
  temps.push(temp);
  const root = realpathSync(temp.path);
  const project = path.join(root, 'project');
  const taskRoot = path.join(root, 'data', 'tasks', 'run_1');
  const view = path.join(taskRoot, 'view');
  const outside = path.join(root, 'outside');
  for (const dir of [project, view, outside, path.join(project, 'config'), path.join(project, '.git')]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(outside, 'credentials'), 'operator-secret\n');
  const copy = (patterns: string[]) => copyProjectFiles({ projectPath: project, taskRoot, view, patterns, dataDir: path.join(root, 'data') });
  return { root, project, taskRoot, view, outside, copy };
}

describe('files copied into a run’s view', () => {
  it('copies what the patterns match, keeping each file’s mode, and says which patterns matched nothing', async () => {
    const { project, view, copy } = layout();
    writeFileSync(path.join(project, '.env'), 'API_URL=http://127.0.0.1\n', { mode: 0o600 });
    writeFileSync(path.join(project, '.env.local'), 'DEBUG=1\n');
    writeFileSync(path.join(project, 'config', 'app.local.json'), '{"local":true}\n');
    writeFileSync(path.join(project, 'config', 'app.json'), '{}\n');
    mkdirSync(path.join(project, 'config', 'nested'));
    writeFileSync(path.join(project, 'config', 'nested', 'deep.local.json'), '{}\n');

    const result = await copy(['.env', '.env.*', 'config/*.local.json', 'missing.txt']);

    expect(result.copied).toEqual([
      { path: '.env', bytes: 25 },
      { path: '.env.local', bytes: 8 },
      { path: 'config/app.local.json', bytes: 15 },
    ]);
    expect(result.skipped).toEqual([{ path: 'missing.txt', reason: 'nothing in the project folder matches it' }]);
    expect(readFileSync(path.join(view, '.env'), 'utf8')).toBe('API_URL=http://127.0.0.1\n');
    expect(statSync(path.join(view, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(view, 'config', 'app.local.json'), 'utf8')).toBe('{"local":true}\n');
    // One level only: `*` does not reach into config/nested, and config/app.json does not match.
    expect(() => lstatSync(path.join(view, 'config', 'nested'))).toThrow();
    expect(() => lstatSync(path.join(view, 'config', 'app.json'))).toThrow();
  });

  it('never follows a link out of the project, never copies a .git path or a FIFO, and follows a link within it', async () => {
    const { project, view, outside, copy } = layout();
    symlinkSync(path.join(outside, 'credentials'), path.join(project, '.env.production'));
    symlinkSync(path.join(project, 'config', 'shared.env'), path.join(project, '.env.shared'));
    writeFileSync(path.join(project, 'config', 'shared.env'), 'SHARED=1\n');
    writeFileSync(path.join(project, '.git', 'config'), '[core]\n');
    // A linked folder is not walked into, even when what it links to is inside the project.
    symlinkSync(outside, path.join(project, 'linked'));
    execFileSync('mkfifo', [path.join(project, '.env.fifo')]);

    const result = await copy(['.env.*', 'linked/*', '**/config', '.git/config']);

    expect(result.copied).toEqual([{ path: '.env.shared', bytes: 9 }]);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { path: '.env.fifo', reason: 'not a regular file (a FIFO, socket or device)' },
        { path: '.env.production', reason: 'a link out of the project folder, which is never followed' },
        { path: 'linked/*', reason: 'nothing in the project folder matches it' },
        { path: '.git/config', reason: '“.git/config” names a .git path, which is never copied' },
      ]),
    );
    expect(() => lstatSync(path.join(view, '.env.production'))).toThrow();
    expect(() => lstatSync(path.join(view, 'linked'))).toThrow();
    expect(() => lstatSync(path.join(view, '.git'))).toThrow();
    expect(readFileSync(path.join(view, '.env.shared'), 'utf8')).toBe('SHARED=1\n');
    expect(lstatSync(path.join(view, '.env.shared')).isFile()).toBe(true);
  });

  it('does not write through a link an earlier attempt left in the view: a file link is replaced, a folder link refused', async () => {
    const { project, view, outside, copy } = layout();
    writeFileSync(path.join(project, '.env'), 'FRESH=1\n');
    writeFileSync(path.join(project, 'config', 'app.local.json'), '{"fresh":true}\n');
    // What an agent could leave behind for the next preparation: .env pointing at the operator's
    // credentials, and config pointing at a folder outside the view.
    symlinkSync(path.join(outside, 'credentials'), path.join(view, '.env'));
    symlinkSync(outside, path.join(view, 'config'));

    const result = await copy(['.env', 'config/app.local.json']);

    expect(readFileSync(path.join(outside, 'credentials'), 'utf8')).toBe('operator-secret\n');
    expect(() => lstatSync(path.join(outside, 'app.local.json'))).toThrow();
    expect(lstatSync(path.join(view, '.env')).isFile()).toBe(true);
    expect(readFileSync(path.join(view, '.env'), 'utf8')).toBe('FRESH=1\n');
    expect(lstatSync(path.join(view, 'config')).isSymbolicLink()).toBe(true);
    expect(result.copied).toEqual([{ path: '.env', bytes: 8 }]);
    expect(result.skipped).toEqual([
      { path: 'config/app.local.json', reason: 'the run’s view has a symbolic link at config; the console does not write through it' },
    ]);
  });

  it('never copies the console’s data folder when it lies inside the project', async () => {
    const { root, taskRoot, view } = layout();
    const project = root;
    writeFileSync(path.join(root, 'top.local.json'), '{}\n');
    const result = await copyProjectFiles({ projectPath: project, taskRoot, view, patterns: ['**/*.local.json', 'data/**'], dataDir: path.join(root, 'data') });
    expect(result.copied.map((file) => file.path)).toEqual(['top.local.json']);
  });
});
