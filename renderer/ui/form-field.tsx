import { useId, type ReactNode } from 'react';

/** What a field's control takes from its field: its id (the label's target) and its aria wiring. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * One labelled form control: the label, the control (rendered by `children` with the props above
 * spread onto it), a hint and the field's problem. The control is described by the problem first,
 * then the hint, then any hint outside the field; it is marked invalid while there is a problem.
 */
export function FormField({
  label,
  hint,
  problem,
  describedBy,
  className,
  children,
}: {
  label: ReactNode;
  /** Shown under the control; absent, nothing is shown and nothing describes the control. */
  hint?: ReactNode;
  /** What is wrong with the value, after a submit. */
  problem?: string | undefined;
  /** The id of a hint outside the field (one several fields share). */
  describedBy?: string;
  /** Classes beside `field`. */
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = useId();
  const problemId = `${id}-problem`;
  const hasHint = hint !== undefined && hint !== null;
  const control: FieldControlProps = {
    id,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': [problem ? problemId : undefined, hasHint ? hintId : undefined, describedBy].filter(Boolean).join(' ') || undefined,
  };
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(control)}
      {hasHint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      {problem ? (
        <p id={problemId} className="field__problem">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
