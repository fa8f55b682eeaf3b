import { useId } from 'react';

/** A radio button or checkbox named by its label alone, with its hint as the description. */
export function Choice({
  type,
  name,
  value,
  checked,
  onChange,
  label,
  hint,
  inputRef,
  disabled,
}: {
  type: 'radio' | 'checkbox';
  name?: string;
  value: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  hint?: string;
  inputRef?: (element: HTMLInputElement | null) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="choice">
      <input
        ref={inputRef}
        id={id}
        type={type}
        name={name}
        value={value}
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={hint ? hintId : undefined}
      />
      <div className="choice__text">
        <label htmlFor={id}>{label}</label>
        {hint ? (
          <span id={hintId} className="choice__hint">
            {hint}
          </span>
        ) : null}
      </div>
    </div>
  );
}
