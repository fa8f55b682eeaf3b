import { spawn } from 'node:child_process';

/**
 * Opens a folder in the file manager of the machine the console runs on (which, for the browser
 * host, may not be where the operator's browser is: callers answer the path too, to copy).
 *
 * Opened means the opener said so (exit 0); one that is still running after a moment (some stay in
 * the foreground) is taken as having opened it. xdg-open without a desktop exits 3.
 */
export function openInFileManager(folder: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise<boolean>((resolve) => {
    const child = spawn(opener, [folder], { detached: true, stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, 3000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
