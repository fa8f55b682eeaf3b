/** Small line icons for the navigation. Decorative: every link names itself in words. */

const iconProps = {
  width: 16,
  height: 16,
  viewBox: '0 0 16 16',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.5,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
  focusable: false,
} as const;

export function RunsIcon() {
  return (
    <svg {...iconProps}>
      <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
      <path d="M4.5 6.25 6.75 8 4.5 9.75M8.5 10h3" />
    </svg>
  );
}

export function TasksIcon() {
  return (
    <svg {...iconProps}>
      <path d="M2.5 4.25 3.5 5.25 5.25 3.5M2.5 8.75l1 1 1.75-1.75M7.5 4.5h6M7.5 9h6M7.5 13h6M2.75 13h1.5" />
    </svg>
  );
}

export function AgentsIcon() {
  return (
    <svg {...iconProps}>
      <rect x="3.25" y="3.25" width="9.5" height="9.5" rx="1.5" />
      <path d="M6 1.5v1.75M10 1.5v1.75M6 12.75v1.75M10 12.75v1.75M1.5 6h1.75M1.5 10h1.75M12.75 6h1.75M12.75 10h1.75" />
      <rect x="6" y="6" width="4" height="4" rx=".5" />
    </svg>
  );
}

/** A broom: Clean up sweeps away the files of finished runs. */
export function CleanupIcon() {
  return (
    <svg {...iconProps}>
      <path d="M13.75 2.25 8.5 7.5" />
      <path d="M8.75 6.75 9.25 7.25a1 1 0 0 1 0 1.4L8.6 9.3 6.7 7.4l.65-.65a1 1 0 0 1 1.4 0z" />
      <path d="M6.7 7.4 2.25 9.75 6.25 13.75 8.6 9.3" />
      <path d="M4.25 11.75 5.5 10.5" />
    </svg>
  );
}

/** Bars of a chart: what agents used, day by day. */
export function UsageIcon() {
  return (
    <svg {...iconProps}>
      <path d="M2 13.75h12" />
      <rect x="3" y="8" width="2.25" height="4" rx=".5" />
      <rect x="6.9" y="3.5" width="2.25" height="8.5" rx=".5" />
      <rect x="10.75" y="6" width="2.25" height="6" rx=".5" />
    </svg>
  );
}

export function SettingsIcon() {
  return (
    <svg {...iconProps}>
      <circle cx="8" cy="8" r="2.25" />
      <path d="M8 1.5v1.75M8 12.75v1.75M14.5 8h-1.75M3.25 8H1.5M12.6 3.4l-1.24 1.24M4.64 11.36 3.4 12.6M12.6 12.6l-1.24-1.24M4.64 4.64 3.4 3.4" />
    </svg>
  );
}

export function NoticesIcon() {
  return (
    <svg {...iconProps}>
      <path d="M4 11.5V7a4 4 0 1 1 8 0v4.5l1.25 1.25H2.75z" />
      <path d="M6.5 14.25a1.6 1.6 0 0 0 3 0" />
    </svg>
  );
}

export function CollapseIcon({ collapsed }: { collapsed: boolean }) {
  return (
    <svg {...iconProps}>
      <rect x="1.75" y="2.25" width="12.5" height="11.5" rx="1.5" />
      <path d="M5.75 2.25v11.5" />
      <path d={collapsed ? 'M8.75 6.25 10.5 8l-1.75 1.75' : 'M10.5 6.25 8.75 8l1.75 1.75'} />
    </svg>
  );
}
