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
    const heading = document.querySelector<HTMLElement>(`#${mainId} [data-page-heading]`);
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
