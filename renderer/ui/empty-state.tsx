import type { ReactNode } from 'react';

/**
 * An empty list that says what to do next. The title is a paragraph, not a heading, so that page
 * headings stay unique for people navigating by heading (and for tests that find them by name).
 */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-state__title">{title}</p>
      {children ? <div className="empty-state__body">{children}</div> : null}
      {action ? <div className="empty-state__action">{action}</div> : null}
    </div>
  );
}
