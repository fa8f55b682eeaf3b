import { useId, type ReactNode, type Ref } from 'react';

/**
 * One side panel of the run detail: a section with its h2 title in a header row.
 *
 * - `headerExtra` sits in the header after the title (a count, a toolbar).
 * - `labelledRegion` names the section itself by its heading (a region landmark). Leave it off when a
 *   list or table inside carries the name instead, so the two are never two landmarks of one name.
 * - `children` may be a function of the heading's id, for a list or table labelled by the heading.
 * - `focusable` lets a route move focus to the section itself (through `sectionRef`).
 */
export function RunPanel({
  title,
  className,
  headerExtra,
  labelledRegion = false,
  sectionRef,
  focusable = false,
  children,
}: {
  title: string;
  className?: string;
  headerExtra?: ReactNode;
  labelledRegion?: boolean;
  sectionRef?: Ref<HTMLElement>;
  focusable?: boolean;
  children: ReactNode | ((headingId: string) => ReactNode);
}) {
  const headingId = useId();
  return (
    <section
      ref={sectionRef}
      className={className ? `run-panel ${className}` : 'run-panel'}
      aria-labelledby={labelledRegion ? headingId : undefined}
      tabIndex={focusable ? -1 : undefined}
    >
      <div className="run-panel__header">
        <h2 id={headingId} className="run-panel__title">
          {title}
        </h2>
        {headerExtra}
      </div>
      {typeof children === 'function' ? children(headingId) : children}
    </section>
  );
}
