import { useState } from 'react';
import type { Environment } from '../../../shared/entities';
import { NoticeCard } from '../notices/notice-card';
import { noticeState } from '../notices/notice-state';
import { useNotices } from '../notices/use-notices';

/**
 * The environment's own notices (a request it blocked), beside its settings: the open ones, and
 * those its last save resolved, with Run again. So the operator who follows "Allow <host>", saves
 * and runs the task again never leaves this page, as on an agent's page for its AI connection.
 */
export function EnvironmentNotices({ environment }: { environment: Environment }) {
  const notices = useNotices('all');
  // A notice run again from here stays in view, so its link to the new run does not vanish.
  const [ranHere, setRanHere] = useState<ReadonlySet<string>>(new Set());
  const shown = (notices.data ?? []).filter((notice) => {
    if (notice.environmentId !== environment.id) return false;
    const state = noticeState(notice);
    return state === 'open' || state === 'can-run-again' || (state === 'ran-again' && ranHere.has(notice.id));
  });
  if (shown.length === 0) return null;
  return (
    <section className="environment-notices" aria-label={`Notices for ${environment.name}`}>
      <h3 className="section-subtitle">Notices for {environment.name}</h3>
      {shown.map((notice) => (
        <NoticeCard key={notice.id} notice={notice} onRanAgain={(id) => setRanHere((current) => new Set([...current, id]))} />
      ))}
    </section>
  );
}
