import type { Ref } from 'react';
import { FormField } from '../../ui/form-field';

/**
 * The branch a run lands in, as both Land dialogs (the run's Changes, Compare) ask it: the project's
 * branches, with the one chosen listed even when the plan does not name it (a route's `?target=`).
 */
export function TargetBranchField({
  branches,
  value,
  baseBranch,
  onChange,
  selectRef,
}: {
  branches: string[];
  value: string;
  baseBranch: string | null;
  onChange: (branch: string) => void;
  selectRef?: Ref<HTMLSelectElement>;
}) {
  const options = branches.includes(value) ? branches : [value, ...branches];
  return (
    <FormField label="Target branch" hint={baseBranch ? `The run was based on ${baseBranch}.` : 'The run started from a detached commit.'}>
      {(control) => (
        <select ref={selectRef} {...control} className="select" value={value} onChange={(event) => onChange(event.target.value)}>
          {options.map((branch) => (
            <option key={branch} value={branch}>
              {branch}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
}
