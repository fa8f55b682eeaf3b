import type { AiConnection } from '../../shared/entities';
import type { CredentialDeliveryParts, DeliverableConnection } from './credential-delivery';
import type { JsonObject, ParserState, TimelineEvent } from './events/timeline-event';
import type { FailureCode } from './failure-classifier';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from './launch';

/**
 * Everything the console knows about one CLI, in one place: one folder per CLI under
 * electron/providers/ (codex/, claude-code/, pi/, gemini-cli/, command/) exports one of these, and
 * definitions.ts lists them. The catalog (resources/providers/catalog.json) keeps only what operators
 * tune (models, profiles, retries) and names its definition; every consumer asks the definition.
 * definitions.test.ts fails when a definition leaves a required part out.
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

/** The provider's home: `<cache>/<folder>`, named by `<variable>` in the run's environment. */
export interface ProviderHomeLayout {
  /** CODEX_HOME, CLAUDE_CONFIG_DIR, ...: confinement reserves every definition's. */
  readonly variable: string;
  /** A single folder name inside the task's cache directory. */
  readonly folder: string;
  /**
   * The operator's own auth and config files a preconfigured home links (never copies), honouring the
   * CLI's own home override in the operator's environment.
   */
  operatorFiles(operatorHome: string, operatorEnv: Readonly<Record<string, string | undefined>>): LinkedFile[];
}

export interface LinkedFile {
  /** Where the operator keeps it. */
  source: string;
  /** Where the CLI looks for it, relative to the task's provider home. */
  relativePath: string;
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

/** Patterns per failure code, tried after (and in the order of) the shared rules for that code. */
export type FailurePatterns = Readonly<Partial<Record<FailureCode, readonly RegExp[]>>>;

/** How a managed AI connection reaches the CLI in an isolated home (DESIGN.md section 4). */
export interface CredentialDeliveryPlan {
  /**
   * Every file a delivery may leave in the provider home, relative to it. Recovery removes these from
   * the homes of runs a previous console left behind, without trusting anything the run could write.
   */
  readonly files: readonly string[];
  /** The OpenRouter endpoint this CLI speaks to, for a connection to it without a base URL; null if none. */
  readonly openRouterBaseUrl: string | null;
  /** The variables and files for one attempt. `baseUrl` is the effective one (effectiveBaseUrl). */
  deliver(input: DeliveryRequest): CredentialDeliveryParts;
  /** The `--model` argument for the agent's model through this connection (the model id unchanged, or addressed through the console's provider entry). */
  modelArgument(model: string, baseUrl: string | null): string;
}

export interface DeliveryRequest {
  connection: DeliverableConnection;
  /** The decrypted key or token: only ever in memory, in the delivered files and in the child's env. */
  secret: string;
  /** The agent's model, exactly as the operator chose it. */
  model: string;
  /** The connection's base URL, or the gateway's (OpenRouter); null: the CLI's provider's own API. */
  baseUrl: string | null;
}
