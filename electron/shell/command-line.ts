/** The options the desktop app reads from its command line (Chromium's own switches pass through). */
export interface ShellArgs {
  dataDir: string | undefined;
}

/** Reads `--data-dir DIR` or `--data-dir=DIR`; the last one given wins, as with most CLIs. */
export function parseShellArgs(argv: readonly string[]): ShellArgs {
  let dataDir: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--data-dir') {
      const next = argv[index + 1];
      if (next !== undefined && !next.startsWith('--')) {
        dataDir = next;
        index += 1;
      }
    } else if (arg.startsWith('--data-dir=')) {
      dataDir = arg.slice('--data-dir='.length) || undefined;
    }
  }
  return { dataDir };
}
