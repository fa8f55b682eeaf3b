import type { ConsoleExpectations } from './console-expectations';
import { describeManagedRuns } from './console-managed-runs';
import { describePreconfiguredRun } from './console-preconfigured-run';
import type { AgentProviderId } from './run-cli';

/**
 * Issue 6, "what must be proven, for each of the four CLIs", run THROUGH THE CONSOLE: the test only
 * calls the core's request channels (createConnection, createAgent, setAgentConnection, createTask,
 * startRun, getRun, listRunEvents, getRunDiff, resumeRun, stopRun, listNotices, openRunOutput), and
 * the console launches the real CLI: admission, the task root and git worktree, the provider home in
 * the task's cache, credential delivery, the confined environment, bubblewrap with the provider-only
 * egress proxy and relay, the PTY, the ledger, redaction, the timeline, the failure classifier and
 * the retry policy are all the console's own. Nothing configures the CLI behind the console's back:
 * the managed runs get everything from the AI connection, the preconfigured one from the stand-in
 * operator's own login files.
 *
 * The managed runs (points 1–5) are console-managed-runs.ts, the preconfigured run (point 6)
 * console-preconfigured-run.ts; what each CLI's file says about its CLI is console-expectations.ts.
 */

export function describeConsoleAgent(providerId: AgentProviderId, expected: ConsoleExpectations): void {
  describeManagedRuns(providerId, expected);
  describePreconfiguredRun(providerId, expected);
}
