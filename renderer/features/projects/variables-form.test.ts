import { describe, expect, it } from 'vitest';
import { rowsFromVariables, variableRowProblems, variablesInput, type VariableRow } from './variables-form';

const consoleVariables = [{ name: 'HOME', setBy: 'the run’s home folder' }];
const row = (patch: Partial<VariableRow>): VariableRow => ({ key: 1, name: 'NODE_ENV', value: 'test', secret: false, kept: false, ...patch });

describe('the variables editor', () => {
  it('says before saving that HOME is the console’s, a name repeats, or a new secret has no value', () => {
    const problems = variableRowProblems(
      [row({ key: 1, name: 'HOME' }), row({ key: 2 }), row({ key: 3 }), row({ key: 4, name: '9LIVES' }), row({ key: 5, name: 'TOKEN', secret: true, value: '' })],
      consoleVariables,
    );
    expect(problems.get(1)).toEqual({ name: 'HOME is set by the console itself (the run’s home folder); use another name', value: undefined });
    expect(problems.has(2)).toBe(false);
    expect(problems.get(3)?.name).toBe('NODE_ENV is named twice');
    expect(problems.get(4)?.name).toContain('is not a variable name');
    expect(problems.get(5)?.value).toBe('enter the secret’s value');
  });

  it('keeps a saved secret it never saw: an empty value is sent as no value', () => {
    let key = 0;
    const rows = rowsFromVariables(
      [
        { name: 'DB_PASSWORD', secret: true, value: null },
        { name: 'NODE_ENV', secret: false, value: 'test' },
      ],
      () => ++key,
    );
    expect(variableRowProblems(rows, consoleVariables).size).toBe(0);
    expect(variablesInput(rows)).toEqual([
      { name: 'DB_PASSWORD', secret: true },
      { name: 'NODE_ENV', secret: false, value: 'test' },
    ]);
    expect(variablesInput([{ ...rows[0]!, value: 'new-password' }])).toEqual([{ name: 'DB_PASSWORD', secret: true, value: 'new-password' }]);
  });
});
