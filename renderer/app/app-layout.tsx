import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { CommandPaletteHost } from '../features/palette/command-palette-host';
import { useUiStore } from '../state/ui-store';
import { MainNav } from './main-nav';
import { StatusBar } from './status-bar';

const mainId = 'main-content';

/** `/runs/run_1` → `runs`: moving within a section keeps focus where it is. */
function sectionOf(path: string): string {
  return path.split('/')[1] ?? '';
}

/**
 * Whether the page now shown has put focus somewhere in itself (or in a dialog it opened). What had
 * focus on the previous page is gone from the document by the time effects run (focus on a removed
 * element falls back to the body), and the main area itself is only focused by Skip to content; a
 * link in the navigation keeps focus after its click, and is not the page's.
 */
function pageTookFocus(main: HTMLElement): boolean {
  const focused = document.activeElement;
  if (!focused || focused === main) return false;
  return main.contains(focused) || focused.closest('dialog[open]') !== null;
}

export function AppLayout({ children }: { children: ReactNode }) {
  const collapsed = useUiStore((state) => state.navCollapsed);
  const [path] = useLocation();
  const section = sectionOf(path);
  const previousSection = useRef(section);
  const headingFocusPending = useRef(false);

  useEffect(() => {
    // After moving to another page, focus its heading so keyboard and screen-reader users start there.
    // A redirect (/settings → /settings/projects) renders no heading at first: keep trying until one shows.
    if (previousSection.current !== section) {
      headingFocusPending.current = previousSection.current !== '';
      previousSection.current = section;
    }
    if (!headingFocusPending.current) return;
    const main = document.getElementById(mainId);
    // The page put focus on what its route names (a notice's link to a field): the operator starts
    // there, not at the heading. This effect is the parent's, so it runs after the page's own effects
    // of the same commit; a field that shows later (its data still loading) takes focus when it does.
    if (main && pageTookFocus(main)) {
      headingFocusPending.current = false;
      return;
    }
    const heading = main?.querySelector<HTMLElement>('[data-page-heading]');
    if (!heading) return;
    headingFocusPending.current = false;
    heading.focus({ preventScroll: true });
  }, [path, section]);

  return (
    <div className={`app-shell${collapsed ? ' app-shell--nav-collapsed' : ''}`}>
      <a
        className="skip-link"
        href={`#${mainId}`}
        onClick={(event) => {
          // A plain #fragment would be read as a route by the hash router: move focus by hand.
          event.preventDefault();
          document.getElementById(mainId)?.focus();
        }}
      >
        Skip to content
      </a>
      <MainNav />
      <main id={mainId} className="app-main" tabIndex={-1}>
        {children}
      </main>
      <StatusBar />
      <CommandPaletteHost />
    </div>
  );
}
