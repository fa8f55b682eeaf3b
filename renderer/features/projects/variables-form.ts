import type { ConsoleVariable, LayerVariable } from '../../../shared/entities';
import { variableNameProblem, variableValueProblem } from '../../../shared/project-setup-rules';

/** One row of a variables editor. `kept`: a saved secret whose value stays in the core (an empty value keeps it). */
export interface VariableRow {
  key: number;
  name: string;
  value: string;
  secret: boolean;
  kept: boolean;
}

export interface VariableRowProblems {
  name?: string | undefined;
  value?: string | undefined;
}

export function rowsFromVariables(variables: readonly LayerVariable[], nextKey: () => number): VariableRow[] {
  return variables.map((variable) => ({ key: nextKey(), name: variable.name, value: variable.value ?? '', secret: variable.secret, kept: variable.secret }));
}

/**
 * What the core would refuse, said before the save: a bad or repeated name, a variable the console
 * sets itself (naming what sets it), a new secret without a value.
 */
export function variableRowProblems(rows: readonly VariableRow[], consoleVariables: readonly ConsoleVariable[]): Map<number, VariableRowProblems> {
  const problems = new Map<number, VariableRowProblems>();
  const setByConsole = new Map(consoleVariables.map((variable) => [variable.name, variable.setBy]));
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    const found: VariableRowProblems = {};
    const setBy = setByConsole.get(name);
    found.name =
      variableNameProblem(name) ??
      (setBy !== undefined ? `${name} is set by the console itself (${setBy}); use another name` : undefined) ??
      (seen.has(name) ? `${name} is named twice` : undefined);
    seen.add(name);
    found.value = variableValueProblem(row.value) ?? (row.secret && !row.kept && row.value === '' ? 'enter the secret’s value' : undefined);
    if (found.name || found.value) problems.set(row.key, found);
  }
  return problems;
}

/** The rows as setLayerVariables takes them: a kept secret with no new value is sent without one. */
export function variablesInput(rows: readonly VariableRow[]): Array<{ name: string; secret: boolean; value?: string }> {
  return rows.map((row) => {
    const name = row.name.trim();
    if (row.secret && row.kept && row.value === '') return { name, secret: true };
    return { name, secret: row.secret, value: row.value };
  });
}
