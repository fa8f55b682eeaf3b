/**
 * Why each attempt started (shared/entities.ts `attemptCauses`), recorded by what starts it: the run's
 * first start, a retry, the operator's Resume or a follow-up turn. Before this an attempt's cause was
 * guessed from its number and the attempt before it, so a Resume after a success read as a retry
 * "after success".
 *
 * Existing attempts get the cause their ledger history records, and none where it records none:
 * - attempt 1 is the run's first start;
 * - an attempt after a `resumed` or `fresh_session` note written between the previous attempt's end
 *   and its own start was the operator's Resume (a follow-up when the note kept a prompt);
 * - else one whose previous attempt had a retry scheduled (`retry_at`) was that retry.
 * Any other is left null: the UI then says only "attempt N".
 */
export const attemptCause = `
ALTER TABLE attempts ADD COLUMN cause TEXT CHECK (cause IN ('first', 'retry', 'resume', 'follow_up'));

UPDATE attempts SET cause = 'first' WHERE number = 1;

UPDATE attempts SET cause = (
  SELECT CASE WHEN e.kind = 'resumed' AND json_extract(e.payload_json, '$.prompt') IS NOT NULL THEN 'follow_up' ELSE 'resume' END
  FROM run_events e
  JOIN attempts p ON p.run_id = attempts.run_id AND p.number = attempts.number - 1
  WHERE e.run_id = attempts.run_id AND e.attempt_id IS NULL AND e.kind IN ('resumed', 'fresh_session')
    AND e.created_at >= coalesce(p.ended_at, p.started_at, 0) AND e.created_at <= coalesce(attempts.started_at, e.created_at)
  ORDER BY e.id DESC LIMIT 1
)
WHERE number > 1;

UPDATE attempts SET cause = 'retry'
WHERE cause IS NULL AND number > 1 AND EXISTS (
  SELECT 1 FROM attempts p WHERE p.run_id = attempts.run_id AND p.number = attempts.number - 1 AND p.retry_at IS NOT NULL
);
`;
