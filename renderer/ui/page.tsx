import { useEffect, type ReactNode } from 'react';
import { setPageTitle } from './document-title';

/** A page in the main area: its one h1, optional actions beside it, and the window title (see document-title.ts). */
export function Page({
  title,
  documentTitle,
  actions,
  subtitle,
  children,
  className,
}: {
  title: ReactNode;
  /** The window title when `title` is not plain text. */
  documentTitle?: string;
  actions?: ReactNode;
  subtitle?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  const windowTitle = documentTitle ?? (typeof title === 'string' ? title : undefined);
  useEffect(() => {
    setPageTitle(windowTitle);
  }, [windowTitle]);

  return (
    <div className={`page${className ? ` ${className}` : ''}`}>
      <header className="page__header">
        <div className="page__titles">
          {/* tabIndex -1: focus moves here after navigation, so screen readers announce the new page. */}
          <h1 className="page__title" tabIndex={-1} data-page-heading="">
            {title}
          </h1>
          {subtitle ? <p className="page__subtitle">{subtitle}</p> : null}
        </div>
        {actions ? <div className="page__actions">{actions}</div> : null}
      </header>
      <div className="page__body">{children}</div>
    </div>
  );
}
