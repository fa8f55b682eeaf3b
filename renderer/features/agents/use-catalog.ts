import { useQuery } from '@tanstack/react-query';
import type { ChannelOutput } from '../../../shared/contract';
import type { CatalogProvider } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { providerName } from './agent-labels';

export type Catalog = ChannelOutput<'getCatalog'>;

/** The provider catalog ships with the console: it does not change while it runs. */
export function useCatalog() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.catalog, queryFn: () => client.getCatalog(), staleTime: Infinity });
}

export function findProvider(catalog: Catalog | undefined, providerId: string): CatalogProvider | undefined {
  return catalog?.providers.find((provider) => provider.id === providerId);
}

/** The catalog's name for a provider, or the built-in one while the catalog loads. */
export function providerDisplayName(catalog: Catalog | undefined, providerId: string): string {
  return findProvider(catalog, providerId)?.displayName ?? providerName(providerId);
}
