import type { ConsoleVariable, LayerVariable, ProjectSetup, RunSetup, VariableLayer, VaultKind } from '../../shared/entities';
import { variableLayers, vaultKinds } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { consoleSetVariables } from '../sandbox/confined-environment';
import { lockedSecretAdvice, lockedSecretReason, type SecretKeeper } from '../connections/secret-vault';
import type { Ledger } from '../ledger/ledger';
import type { StoredVariable, VariableOwner } from '../ledger/project-setup-repository';
import type { EventHub } from '../events/event-hub';

/** A layer's variable as the operator saves it: a secret without a value keeps the one stored. */
export interface VariableInput {
  name: string;
  secret: boolean;
  value?: string | undefined;
}

/** A run's variables, merged from its layers: what its environment gets, and what the run detail shows. */
export interface RunVariables {
  env: Record<string, string>;
  /** The secret values among them: the run redacts them from its output, events and the log. */
  secrets: string[];
  listing: RunSetup['variables'];
}

const layerWords: Record<VariableLayer, string> = { project: 'a project variable', agent: 'an agent variable', task: 'a task override' };

/**
 * A project's setup settings and the variable layers (DESIGN.md section 4; issue 12). Secret values
 * are sealed with the console's vault, as an AI connection's key is, and opened only for a run's
 * environment; nothing here sends one back out.
 */
export class ProjectSetupService {
  private consoleVariableList: ConsoleVariable[] | null = null;

  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly keeper: SecretKeeper,
    private readonly now: () => number = Date.now,
  ) {}

  getSetup(projectId: string): ProjectSetup {
    const stored = this.ledger.projectSetup.get(projectId);
    if (!stored) throw projectGone();
    return { projectId, ...stored };
  }

  updateSetup(projectId: string, changes: { copyPatterns?: string[] | undefined; setupCommand?: string | null | undefined }): ProjectSetup {
    this.getSetup(projectId);
    this.ledger.projectSetup.update(projectId, {
      ...(changes.copyPatterns !== undefined ? { copyPatterns: [...new Set(changes.copyPatterns)] } : {}),
      ...(changes.setupCommand !== undefined ? { setupCommand: changes.setupCommand } : {}),
    });
    this.events.emit('projectsChanged', {});
    return this.getSetup(projectId);
  }

  /** Every variable the console sets for a run itself (sandbox/confined-environment.ts derives them). */
  consoleVariables(): ConsoleVariable[] {
    return (this.consoleVariableList ??= consoleSetVariables());
  }

  listVariables(owner: VariableOwner): LayerVariable[] {
    this.requireOwner(owner);
    return this.ledger.projectSetup.variables(owner).map(toLayerVariable);
  }

  setVariables(owner: VariableOwner, variables: readonly VariableInput[]): LayerVariable[] {
    this.requireOwner(owner);
    const reserved = new Map(this.consoleVariables().map((variable) => [variable.name, variable.setBy]));
    for (const variable of variables) {
      const setBy = reserved.get(variable.name);
      if (setBy !== undefined) {
        throw new OperatorError({
          code: 'reserved_variable',
          reason: variable.name,
          message: `${variable.name} is set by the console itself (${setBy}), so ${layerWords[owner.layer]} cannot set it. Remove it or use another name.`,
        });
      }
    }
    const stored = new Map(this.ledger.projectSetup.variables(owner).map((variable) => [variable.name, variable]));
    const rows: StoredVariable[] = variables.map((variable) => {
      if (!variable.secret) return { name: variable.name, value: variable.value ?? '', sealedValue: null };
      if (variable.value !== undefined) return { name: variable.name, value: null, sealedValue: this.keeper.seal(variable.value) };
      const kept = stored.get(variable.name)?.sealedValue;
      if (!kept) {
        throw new OperatorError({ code: 'invalid_request', message: `${variable.name} is new or was not secret: enter its value to keep it secret.` });
      }
      return { name: variable.name, value: null, sealedValue: kept };
    });
    this.ledger.projectSetup.replaceVariables(owner, rows, this.now());
    this.events.emit(owner.layer === 'project' ? 'projectsChanged' : owner.layer === 'agent' ? 'agentsChanged' : 'tasksChanged', {});
    return this.listVariables(owner);
  }

  /**
   * A run's variables: its project's, then its agent's, then its task's, each later layer overriding
   * the ones before. Secret values are opened here (at launch, never earlier). A name the console now
   * sets itself (a CLI added since it was saved) is left out: confinement would withhold it anyway.
   */
  variablesForRun(owners: RunOwners): RunVariables {
    const { ids, merged } = this.mergedVariables(owners);
    const env: Record<string, string> = {};
    const secrets: string[] = [];
    const listing: RunSetup['variables'] = [];
    for (const [name, { layer, variable, overrides }] of merged) {
      const secret = variable.sealedValue !== null;
      const value = secret ? this.openSecret(name, layer, ids, variable.sealedValue!) : (variable.value ?? '');
      env[name] = value;
      if (secret) secrets.push(value);
      listing.push({ name, source: layer, secret, value: secret ? null : value, overrides });
    }
    return { env, secrets, listing };
  }

  /**
   * For admission, before anything of the run is made: the refusal of a run whose variables hold a
   * secret this console cannot open now (sealed by the desktop app, which has not unlocked it for this
   * service), or null. Nothing is opened here: only which vault sealed each value is looked at.
   */
  unreadableVariable(owners: RunOwners): OperatorErrorShape | null {
    const { ids, merged } = this.mergedVariables(owners);
    for (const [name, { layer, variable }] of merged) {
      const sealed = variable.sealedValue;
      if (sealed === null) continue;
      const kind = sealed.slice(0, sealed.indexOf(':'));
      if (!(vaultKinds as readonly string[]).includes(kind)) return variableUnreadable(name, layer, ids, { locked: false, detail: 'it is stored in a form this console does not know' }).toShape();
      if (!this.keeper.canOpen(kind as VaultKind)) return variableUnreadable(name, layer, ids, { locked: true }).toShape();
    }
    return null;
  }

  /** The run's variables by name: each from the last layer that sets it (project, agent, task), without the names the console sets itself. */
  private mergedVariables(owners: RunOwners) {
    const reserved = new Set(this.consoleVariables().map((variable) => variable.name));
    const merged = new Map<string, { layer: VariableLayer; variable: StoredVariable; overrides: VariableLayer[] }>();
    const ids: Record<VariableLayer, string> = { project: owners.projectId, agent: owners.agentId, task: owners.taskId };
    for (const layer of variableLayers) {
      for (const variable of this.ledger.projectSetup.variables({ layer, id: ids[layer] })) {
        if (reserved.has(variable.name)) continue;
        const earlier = merged.get(variable.name);
        merged.set(variable.name, { layer, variable, overrides: earlier ? [...earlier.overrides, earlier.layer] : [] });
      }
    }
    return { ids, merged };
  }

  private openSecret(name: string, layer: VariableLayer, ids: Record<VariableLayer, string>, sealed: string): string {
    try {
      return this.keeper.open(sealed);
    } catch (error) {
      if (!(error instanceof OperatorError)) throw error;
      throw variableUnreadable(name, layer, ids, error.reason === lockedSecretReason ? { locked: true } : { locked: false, detail: error.message.split('. ')[0]! });
    }
  }

  private requireOwner(owner: VariableOwner): void {
    const exists =
      owner.layer === 'project'
        ? this.ledger.projects.get(owner.id) !== undefined
        : owner.layer === 'agent'
          ? this.ledger.agents.get(owner.id)?.deleted === false
          : this.ledger.tasks.get(owner.id) !== undefined;
    if (!exists) throw new OperatorError({ code: 'not_found', message: `That ${owner.layer} is no longer in the console.` });
  }
}

type RunOwners = { projectId: string; agentId: string; taskId: string };

function variableUnreadable(name: string, layer: VariableLayer, ids: Record<VariableLayer, string>, why: { locked: true } | { locked: false; detail: string }): OperatorError {
  return new OperatorError({
    code: 'configuration_incomplete',
    reason: 'variable_unreadable',
    message: why.locked
      ? `The secret value of ${name} (${layerWords[layer]}) cannot be read now. ${lockedSecretAdvice('enter it again')}`
      : `The secret value of ${name} (${layerWords[layer]}) cannot be read: ${why.detail}. Enter it again.`,
    actionUrl: layerRoute(layer, ids[layer]),
  });
}

function toLayerVariable(variable: StoredVariable): LayerVariable {
  return { name: variable.name, secret: variable.sealedValue !== null, value: variable.sealedValue !== null ? null : variable.value };
}

function projectGone(): OperatorError {
  return new OperatorError({ code: 'not_found', message: 'That project is no longer in the console.', actionUrl: actionRoute({ kind: 'settings-projects' }) });
}

/** Where a layer's variables are edited. */
export function layerRoute(layer: VariableLayer, id: string): string {
  if (layer === 'project') return actionRoute({ kind: 'project-setup', projectId: id, field: 'variables' });
  if (layer === 'agent') return actionRoute({ kind: 'agent', agentId: id });
  return actionRoute({ kind: 'tasks' });
}
