import { useLocation } from 'wouter';

/** Opens another run (a resumed or re-run one) and keeps focus on the page heading. */
export function useGoToRun(currentRunId: string) {
  const [, navigate] = useLocation();
  return (runId: string) => {
    if (runId === currentRunId) return;
    navigate(`/runs/${encodeURIComponent(runId)}`);
    // Same section, so the layout keeps focus where it was: on a button the new run may not show.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-page-heading]')?.focus());
  };
}
