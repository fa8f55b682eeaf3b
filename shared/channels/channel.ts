import { z } from 'zod';

/** What every channel file of the contract (shared/contract.ts) builds its channels with. */

export function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export const noInput = z.strictObject({}).optional();
export const entityId = z.string().min(1).max(200);
