import { createContext, useContext, type ReactNode } from 'react';
import type { OperatorClient } from '../../shared/contract';

const OperatorClientContext = createContext<OperatorClient | null>(null);

export function OperatorClientProvider({ client, children }: { client: OperatorClient; children: ReactNode }) {
  return <OperatorClientContext.Provider value={client}>{children}</OperatorClientContext.Provider>;
}

/** The core's API, whichever transport carries it. */
export function useOperatorClient(): OperatorClient {
  const client = useContext(OperatorClientContext);
  if (!client) throw new Error('useOperatorClient used outside OperatorClientProvider');
  return client;
}
