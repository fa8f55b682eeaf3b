import type { AiConnection, Environment } from '../../shared/entities';
import type { StoredAgent } from './agents-repository';

/** The AI connection a run was admitted with: metadata only, the secret is opened at launch. */
export interface AdmittedConnection {
  id: string;
  name: string;
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string | null;
}

/**
 * What a run was admitted with. Saved on the run before anything starts; a run resumed later keeps
 * it (its home mode, its environment and its network rules, whether it needed an AI connection) even
 * if the agent or the environment has changed since.
 */
export interface Admission {
  /**
   * 3 since environments have allowed hosts; 2 since the AI-connection rule. Older saved ones are read
   * by `savedAdmission`: a version 1 was admitted before the rule, and neither had allowed hosts.
   */
  version: 3;
  agentId: string;
  agentName: string;
  providerId: string;
  model: string;
  profileId: string;
  profileRevision: string;
  environmentId: string;
  environmentKind: Environment['kind'];
  networkMode: Environment['networkMode'];
  /**
   * The environment's allowed hosts at admission (canonical `host` / `host:port` entries): what a
   * provider-only run may reach besides its model. Empty for a local environment, which has no proxy.
   */
  allowedHosts: string[];
  homeMode: StoredAgent['homeMode'];
  connectionId: string | null;
  /** Whether the run had to have a managed AI connection (false for runs admitted before the rule). */
  connectionRequired: boolean;
  /** The connection whose key is delivered at launch; null when none is (a preconfigured home, no binding). */
  connection: AdmittedConnection | null;
  /** The SSH host the run executes on (issue 28); absent for this machine. A resumed run goes back to it. */
  host?: { id: string; name: string };
  admittedAt: string;
}

/** A saved admission from before environments had allowed hosts. */
type AdmissionV2 = Omit<Admission, 'version' | 'allowedHosts'> & { version: 2 };
/** A saved admission from before the AI-connection rule: no connection fields either. */
type AdmissionV1 = Omit<AdmissionV2, 'version' | 'connectionRequired' | 'connection'> & { version: 1 };

/**
 * Reads a saved admission. One made before the AI-connection rule (version 1) keeps the contract it
 * was admitted under: the rule did not apply to it, and no connection was delivered. One made before
 * allowed hosts (versions 1 and 2) had none: its proxy let through the model's API alone.
 */
export function savedAdmission(json: string | null): Admission | undefined {
  if (!json) return undefined;
  const saved = JSON.parse(json) as Admission | AdmissionV2 | AdmissionV1;
  if (saved.version === 1) return { ...saved, version: 3, connectionRequired: false, connection: null, allowedHosts: [] };
  if (saved.version === 2) return { ...saved, version: 3, allowedHosts: [] };
  return saved;
}
