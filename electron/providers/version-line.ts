/**
 * The first dotted version in what a CLI prints for `--version`, colours stripped: `codex-cli
 * 0.171.0`, `2.1.197 (Claude Code)`, `0.73.1`. Each definition names the parser its CLI needs; the
 * four CLIs here all print a line this reads.
 */
export function firstDottedVersion(output: string): string | null {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  return plain.match(/\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/)?.[1] ?? null;
}
