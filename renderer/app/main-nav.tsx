import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { CommandPaletteButton } from '../features/palette/command-palette-button';
import { SearchIcon } from '../features/palette/search-icon';
import { useUiStore } from '../state/ui-store';
import { AgentsIcon, CleanupIcon, CollapseIcon, NoticesIcon, RunsIcon, SettingsIcon, TasksIcon, UsageIcon } from './nav-icons';
import { useOperatorClient } from './operator-context';
import { queryKeys } from './query-keys';
import { isPathWithin, openNoticesLabel } from './shell-labels';

function NavItem({ href, label, icon, badge }: { href: string; label: string; icon: ReactNode; badge?: ReactNode }) {
  const [path] = useLocation();
  const collapsed = useUiStore((state) => state.navCollapsed);
  const active = isPathWithin(path, href);
  return (
    <li>
      <Link
        href={href}
        className="main-nav__link"
        aria-current={active ? 'page' : undefined}
        title={collapsed ? label : undefined}
      >
        <span className="main-nav__icon">{icon}</span>
        <span className="main-nav__label">{label}</span>
        {badge}
      </Link>
    </li>
  );
}

function OpenNoticesBadge() {
  const client = useOperatorClient();
  const { data } = useQuery({ queryKey: queryKeys.noticesCount, queryFn: () => client.countOpenNotices() });
  const open = data?.open ?? 0;
  if (open === 0) return null;
  return (
    <span className="main-nav__badge" role="img" aria-label={openNoticesLabel(open)}>
      {open > 99 ? '99+' : open}
    </span>
  );
}

export function MainNav() {
  const collapsed = useUiStore((state) => state.navCollapsed);
  const toggleNav = useUiStore((state) => state.toggleNav);
  return (
    <nav className="main-nav" aria-label="Main">
      <div className="main-nav__brand">
        <span className="main-nav__logo" aria-hidden="true">
          OC
        </span>
        <span className="main-nav__product">Operator Console</span>
      </div>
      <CommandPaletteButton />
      <ul className="main-nav__list">
        <NavItem href="/runs" label="Runs" icon={<RunsIcon />} />
        <NavItem href="/tasks" label="Tasks" icon={<TasksIcon />} />
        <NavItem href="/search" label="Search" icon={<SearchIcon />} />
        <NavItem href="/agents" label="Agents" icon={<AgentsIcon />} />
        <NavItem href="/usage" label="Usage" icon={<UsageIcon />} />
        <NavItem href="/cleanup" label="Clean up" icon={<CleanupIcon />} />
        <NavItem href="/settings" label="Settings" icon={<SettingsIcon />} />
        <NavItem href="/notices" label="Notices" icon={<NoticesIcon />} badge={<OpenNoticesBadge />} />
      </ul>
      <button
        type="button"
        className="main-nav__collapse"
        onClick={toggleNav}
        aria-label={collapsed ? 'Expand navigation' : 'Collapse navigation'}
        title={collapsed ? 'Expand navigation' : 'Collapse navigation'}
      >
        <CollapseIcon collapsed={collapsed} />
      </button>
    </nav>
  );
}
