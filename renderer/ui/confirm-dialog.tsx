import { useRef, type ReactNode } from 'react';
import { ErrorAlert } from './error-alert';
import { ModalDialog } from './modal-dialog';
import { useSingleSubmit } from './use-single-submit';

/**
 * Asks before a destructive action: an alert dialog whose Cancel has focus first, and a danger button
 * that does nothing while the action is on its way (aria-disabled, so it stays focusable and named),
 * however fast it is clicked again (useSingleSubmit). The action's failure shows inside the dialog,
 * which stays open.
 */
export function ConfirmDialog({
  title,
  description,
  confirmLabel,
  pendingNote,
  error,
  errorPrefix,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** Shown while the action runs, when it takes long enough to say what is happening. */
  pendingNote?: string;
  /** The action's error, or null. */
  error: unknown;
  /** Leads the error message, e.g. "Could not delete the run." */
  errorPrefix?: string;
  /** Called on confirm unless the action is already on its way; returns its request (a mutation's `mutateAsync`). */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  /** More detail above the pending note and error. */
  children?: ReactNode;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const { pending, submit } = useSingleSubmit();
  return (
    <ModalDialog
      role="alertdialog"
      title={title}
      description={description}
      onClose={onClose}
      initialFocusRef={cancelRef}
      footer={
        <>
          <button ref={cancelRef} type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button button--danger"
            aria-disabled={pending || undefined}
            onClick={() => submit(onConfirm)}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
      {pending && pendingNote ? <p className="muted">{pendingNote}</p> : null}
      {error != null ? <ErrorAlert error={error} prefix={errorPrefix} /> : null}
    </ModalDialog>
  );
}
