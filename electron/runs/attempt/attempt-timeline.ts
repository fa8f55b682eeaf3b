import { createEventParser } from '../../providers/events/parse-event-line';
import { LineSplitter } from '../../providers/events/line-splitter';
import type { TimelineEvent } from '../../providers/events/timeline-event';
import type { OutputPipeline } from '../../pty/output-pipeline';
import type { ActiveRun, RunContext } from '../run-context';

/**
 * Parses the CLI's JSON-line stream into timeline entries, off the batches the pipeline cuts. The
 * session id it reports is recorded (where the console did not name it itself), and the attempt's
 * events are kept for the failure classifier. Each entry, once stored, is told on the lifecycle bus
 * with the session known when it was parsed: usage reports become the attempt's recorded usage there
 * (usage/attempt-usage.ts).
 */
export function followTimeline(
  context: RunContext,
  active: ActiveRun,
  pipeline: OutputPipeline,
  format: string | null,
): void {
  if (!format) return;
  const parser = createEventParser(format);
  const splitter = new LineSplitter();
  const attemptId = active.attemptId;
  // The bytes are redacted already; the parsed values are checked again, as everything written is.
  const redactor = context.redactorFor(active.runId);
  const take = (lines: string[], end = false) => {
    const entries: Array<{ kind: string; data: Record<string, unknown>; sessionId: string | null }> = [];
    const parsed = lines.flatMap((line) => (line.trim() === '' ? [] : parser.parseLine(line)));
    // At the end of the output, a message the CLI was still streaming is complete.
    if (end) parsed.push(...parser.flush());
    for (const event of parsed) {
      // Unparseable lines stay what they are: raw output, already in the ledger and the terminal.
      if (event.kind === 'raw') continue;
      active.attemptEvents.push(event);
      if (event.kind === 'session' && active.sessionSource !== 'argv' && event.sessionId !== active.sessionId) {
        active.sessionId = event.sessionId;
        context.saveSessionLocator(active);
      }
      const { kind, ...data } = event;
      // A message joined from streamed pieces can hold a secret no single piece showed: every value
      // is redacted as it is written.
      entries.push({ kind, data: redactor ? redactor.redactValue(data) : data, sessionId: active.sessionId });
    }
    if (entries.length) {
      context.ledger.runs.appendEvents(
        active.runId,
        attemptId,
        entries.map(({ kind, data }) => ({ kind, data })),
        context.now(),
      );
      context.announceTimeline(active.runId);
      // The lifecycle bus hears each entry as the timeline holds it (redacted).
      const parties = active.attempt?.parties;
      if (parties) for (const { kind, data, sessionId } of entries) context.lifecycle.emit('timelineEvent', { ...parties, event: { kind, ...data } as TimelineEvent, sessionId });
    }
  };
  pipeline.feed.onBatch((batch) => take(splitter.push(batch.bytes)));
  pipeline.feed.onEnd(() => take(splitter.flush(), true));
}
