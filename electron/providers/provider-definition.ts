import type { AiConnection } from '../../shared/entities';
import type { CredentialDeliveryPlan } from './credential-delivery';
import type { JsonObject, ParserState, TimelineEvent } from './events/timeline-event';
import type { FailurePatterns } from './failure-classifier';
import type { ProviderHomeLayout } from './home-layout';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from './launch';

/**
 * Everything the console knows about one CLI, in one place: one folder per CLI under
 * electron/providers/ (codex/, claude-code/, pi/, gemini-cli/, command/) exports one of these, and
 * definitions.ts lists them. The catalog (resources/providers/catalog.json) keeps only what operators
 * tune (models, profiles, retries) and names its definition; every consumer asks the definition.
 * definitions.test.ts fails when a definition leaves a required part out. Each part's types live with
 * the part (launch.ts, home-layout.ts, failure-classifier.ts, credential-delivery.ts): this file only
 * puts them together, so no part imports it back.
 */
export interface ProviderDefinition {
  /** The name a catalog entry gives in its `definition` field. */
  readonly id: string;
  /** The CLI's name in messages, unless the catalog entry gives its own. */
  readonly displayName: string;
  /** The program a run starts (found on the run's PATH). Null: each agent or profile names its own. */
  readonly executable: string | null;
  /** The CLI version the argv, the parser and the delivery were checked against. Null for `command`. */
  readonly testedVersion: string | null;
  /**
   * True for `command`: the agent names the program, which can be anything (a wrapper around one of
   * the CLIs, too). It has no home of its own and no version the console checks.
   */
  readonly ownProgram: boolean;
  /** The AI connections the delivery can hand this CLI. */
  readonly connectionProviders: readonly AiConnection['provider'][];
  /** The CLI's home in the task's cache; null for a program with no home the console knows. */
  readonly home: ProviderHomeLayout | null;
  readonly launch: ProviderLaunch;
  readonly events: ProviderEvents;
  /** What this CLI prints for failures the shared rules do not know (failure-classifier.ts). */
  readonly failurePatterns: FailurePatterns;
  readonly delivery: CredentialDeliveryPlan;
  /**
   * Where the CLI's model API lives when no AI connection names a base URL: what a `provider-only`
   * sandbox's egress proxy lets through (with the operator's allow-list).
   */
  readonly apiUrls: readonly string[];
  /** The version in what `<cli> --version` prints, or null. */
  parseVersion(output: string): string | null;
}

export interface ProviderLaunch {
  /** Whether a run can be resumed in the CLI's native session (see SessionRequest). */
  readonly resumable: boolean;
  /** The argv and environment additions for a headless run (new or resumed). Pure. */
  build(target: LaunchTarget, request: LaunchRequest): LaunchSpec;
}

/** One JSON object of the CLI's stream → timeline events (see events/parse-event-line.ts). */
export type FormatParser = (event: JsonObject, line: string, state: ParserState) => TimelineEvent[];

export interface ProviderEvents {
  /** The name of the stream the CLI prints; a `command` profile may name another definition's. */
  readonly format: string;
  /** Null for plain text: every line is raw output. */
  readonly parse: FormatParser | null;
}
