import type { TimelineEventKind } from '../../electron/providers/events/timeline-event';
import type { UsageCounting } from '../../shared/usage';
import type { ModelServer } from './model-servers';

/** What each CLI's console test file says about its CLI (console-suite.ts), and the bounds every test keeps. */

export interface ConsoleExpectations {
  /** The header the connection's key arrives in, and its exact value. */
  keyHeader: 'authorization' | 'x-api-key' | 'x-goog-api-key';
  keyValue(apiKey: string): string;
  /** Besides assistant messages, usage and the session: what a successful run's timeline shows. */
  workEvents: TimelineEventKind[];
  /** Where the CLI keeps its session, relative to its provider home. */
  sessionState: RegExp;
  /** Text of the CLI's own stream that the live output must show. */
  outputShows: string[];
  /** Whether the model's text reaches the output in one piece (Gemini CLI streams it in pieces). */
  textWholeInOutput: boolean;
  /** Whether a 429's reset hint reaches the console (else it waits its default window, 60 s). */
  resetObserved: boolean;
  /** How many model requests must drop for one attempt to fail (Claude retries a drop once by itself). */
  dropsPerAttempt: number;
  /** What one of the CLI's usage reports covers (its parser says so on each usage event). */
  usageCounting: UsageCounting;
  /** Whether the CLI says how much of its output was reasoning (else the console records none). */
  reportsReasoning: boolean;
  /**
   * The operator's own login for the preconfigured home: files relative to the operator's HOME,
   * pointing the CLI at the local server with the key, as the CLI's own login or config would.
   */
  operatorLogin(context: { server: ModelServer; apiKey: string; model: string }): Record<string, string>;
  /** Links the task's provider home must hold: provider-home-relative path → HOME-relative target. */
  linkedFiles: Record<string, string>;
}

/** The file the first run of each suite asks for. */
export const firstFile = 'hello.txt';
/** Every CLI run through the console is bounded by this (a test waits at most this for one run to end). */
export const runTimeoutMs = 60_000;
export const consoleTestTimeoutMs = 120_000;
export const installTimeoutMs = 15 * 60_000;
