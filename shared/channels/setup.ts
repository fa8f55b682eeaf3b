import { z } from 'zod';
import { consoleVariableSchema, layerVariableSchema, projectSetupSchema, variableLayers } from '../entities';
import {
  copyPatternProblem,
  maxCopyPatterns,
  maxLayerVariables,
  maxSetupCommandLength,
  variableNameProblem,
  variableValueProblem,
} from '../project-setup-rules';
import { channel, entityId, noInput } from './channel';

/**
 * A project's setup (files copied into each run, the setup command) and the variable layers a run's
 * environment is merged from: project < agent < task.
 */

const copyPattern = z
  .string()
  .trim()
  .superRefine((value, context) => {
    const problem = copyPatternProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });
/** An empty command is none. */
const setupCommand = z
  .string()
  .max(maxSetupCommandLength)
  .transform((value) => (value.trim() === '' ? null : value.trim()))
  .nullable();
const variableName = z
  .string()
  .trim()
  .superRefine((value, context) => {
    const problem = variableNameProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });
const variableValue = z.string().superRefine((value, context) => {
  const problem = variableValueProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
const layerOwner = { layer: z.enum(variableLayers), ownerId: entityId };

export const setupChannels = {
  getProjectSetup: channel(z.strictObject({ projectId: entityId }), projectSetupSchema),
  updateProjectSetup: channel(
    z.strictObject({
      projectId: entityId,
      copyPatterns: z.array(copyPattern).max(maxCopyPatterns).optional(),
      setupCommand: setupCommand.optional(),
    }),
    projectSetupSchema,
  ),
  /** The variables the console sets for every run itself, which no layer may set (HOME, TMPDIR, the proxy, delivered keys…). */
  listConsoleVariables: channel(noInput, z.array(consoleVariableSchema)),
  /** A layer's variables: a project's, an agent's or a task's. Secret values never leave the core. */
  listLayerVariables: channel(z.strictObject(layerOwner), z.array(layerVariableSchema)),
  /**
   * Replaces a layer's variables with these, in this order. A secret given without a value keeps the
   * value stored for it (a secret is never sent back to be edited); a value marked secret is sealed with
   * the console's vault, as an AI connection's key is. A variable the console sets itself is refused
   * (code reserved_variable, naming it).
   */
  setLayerVariables: channel(
    z
      .strictObject({
        ...layerOwner,
        variables: z
          .array(z.strictObject({ name: variableName, secret: z.boolean(), value: variableValue.optional() }))
          .max(maxLayerVariables),
      })
      .superRefine((input, context) => {
        const seen = new Set<string>();
        input.variables.forEach((variable, index) => {
          if (seen.has(variable.name)) context.addIssue({ code: 'custom', path: ['variables', index, 'name'], message: `${variable.name} is named twice` });
          seen.add(variable.name);
          if (!variable.secret && variable.value === undefined) {
            context.addIssue({ code: 'custom', path: ['variables', index, 'value'], message: `${variable.name} needs a value` });
          }
        });
      }),
    z.array(layerVariableSchema),
  ),
} as const;
