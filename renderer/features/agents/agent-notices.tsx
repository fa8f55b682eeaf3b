import { useState } from 'react';
import { NoticeCard } from '../notices/notice-card';
import { noticeState } from '../notices/notice-state';
import { useNotices } from '../notices/use-notices';

/**
 * The agent's own notices, on its page: the open ones (what the link that brought the operator here
 * asked for) and those whose fix was just made, with Run again. So the operator who follows a
 * notice's link, fixes the setting and runs the task again never has to leave this page.
 */
export function AgentNotices({ agentId }: { agentId: string }) {
  const notices = useNotices('all');
  // A notice run again from here stays in view, so its link to the new run does not vanish.
  const [ranHere, setRanHere] = useState<ReadonlySet<string>>(new Set());
  const shown = (notices.data ?? []).filter((notice) => {
    if (notice.agentId !== agentId) return false;
    const state = noticeState(notice);
    return state === 'open' || state === 'can-run-again' || (state === 'ran-again' && ranHere.has(notice.id));
  });
  if (shown.length === 0) return null;
  return (
    <section className="settings-section agent-notices" aria-labelledby="agent-notices-heading">
      <h2 id="agent-notices-heading" className="section-title">
        Notices for this agent
      </h2>
      {shown.map((notice) => (
        <NoticeCard key={notice.id} notice={notice} onRanAgain={(id) => setRanHere((current) => new Set([...current, id]))} />
      ))}
    </section>
  );
}
