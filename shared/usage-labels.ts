import type { BillingKind } from './usage';

/** Words for usage that the core, the renderer and the CSV export say alike. */

/** How a run's usage is paid for, in words (the Usage table, its CSV, the run detail). */
export const billingLabels: Record<BillingKind, string> = {
  api_key: 'API key',
  subscription: 'Subscription',
  operator_login: 'Own login',
};

/** The stack and the connection column of runs without a managed connection (the operator's own login). */
export const ownLoginConnectionLabel = 'Own login (no connection)';
