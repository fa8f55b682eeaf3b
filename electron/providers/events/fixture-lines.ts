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

/** Tokens normalized as the console counts them (input with cached, output with reasoning). */
export interface FixtureTokens {
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
}

/**
 * What the scripted model server reported for the model requests of one captured turn
 * (fixtures/usage-reported.json, e2e/agents/model-servers/reported-usage.ts), summed: what a parser's
 * reports for `<cli>-turn-<n>` must come to once counted. Turn 2 resumed turn 1's session.
 */
export function reportedByServer(cli: 'codex' | 'claude' | 'pi' | 'gemini', turns: number[]): FixtureTokens {
  const reported = JSON.parse(fixtureText('usage-reported.json')) as Record<string, FixtureTokens[][]>;
  const total: FixtureTokens = { input: 0, output: 0, cachedInput: 0, reasoning: 0 };
  for (const turn of turns) {
    for (const request of reported[cli]?.[turn - 1] ?? []) {
      total.input += request.input;
      total.output += request.output;
      total.cachedInput += request.cachedInput;
      total.reasoning += request.reasoning;
    }
  }
  return total;
}
