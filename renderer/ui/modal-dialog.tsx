import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';

const tabbableSelector = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the page inert (so
 * focus stays inside), Escape closes it, and focus goes back to what opened it. Render it only while
 * it is open.
 */
export function ModalDialog({
  title,
  description,
  onClose,
  initialFocusRef,
  role = 'dialog',
  className,
  children,
  footer,
}: {
  title: string;
  description?: ReactNode;
  onClose: () => void;
  /** What gets focus on open; otherwise the first focusable control. */
  initialFocusRef?: RefObject<HTMLElement | null>;
  role?: 'dialog' | 'alertdialog';
  className?: string;
  children?: ReactNode;
  footer?: ReactNode;
}) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    initialFocusRef?.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      // The opener may be gone (the project it removed, say): fall back to the page heading.
      const target = opener?.isConnected ? opener : document.querySelector<HTMLElement>('[data-page-heading]');
      target?.focus();
    };
    // Opening happens once per mount; initialFocusRef is a stable ref.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <dialog
      ref={dialogRef}
      role={role}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className={`modal${className ? ` ${className}` : ''}`}
      onCancel={(event) => {
        // Escape: let React state close it, so the dialog and the state never disagree.
        event.preventDefault();
        onCloseRef.current();
      }}
      onKeyDown={(event) => {
        // A modal keeps Tab inside itself rather than letting it wander to the browser's own controls.
        if (event.key !== 'Tab' || !dialogRef.current) return;
        // A dialog opened from this one (portalled, so outside it in the page) keeps its own Tab order.
        if (!(event.target instanceof Node) || !dialogRef.current.contains(event.target)) return;
        const tabbable = [...dialogRef.current.querySelectorAll<HTMLElement>(tabbableSelector)].filter(
          (element) => !element.closest('[hidden]') && element.getClientRects().length > 0,
        );
        const first = tabbable[0];
        const last = tabbable.at(-1);
        if (!first || !last) return;
        const active = document.activeElement;
        const inside = active instanceof Node && dialogRef.current.contains(active);
        if (event.shiftKey && (active === first || !inside)) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && (active === last || !inside)) {
          event.preventDefault();
          first.focus();
        }
      }}
      onMouseDown={(event) => {
        // A press on the backdrop (outside the panel) dismisses, like Escape.
        if (event.target === dialogRef.current) onCloseRef.current();
      }}
    >
      <div className="modal__panel">
        <header className="modal__header">
          <h2 id={titleId} className="modal__title">
            {title}
          </h2>
          {description ? (
            <div id={descriptionId} className="modal__description">
              {description}
            </div>
          ) : null}
        </header>
        <div className="modal__body">{children}</div>
        {footer ? <footer className="modal__footer">{footer}</footer> : null}
      </div>
    </dialog>
  );
}
