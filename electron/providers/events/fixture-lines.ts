import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Test helper: the lines of a captured CLI stream in fixtures/ (see fixtures/README.md). */
export function fixtureLines(name: string): string[] {
  const text = readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
  return text.split('\n').filter((line) => line.trim() !== '');
}

export function fixtureText(name: string): string {
  return readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
}
