import type { usageChannels } from '../../shared/channels/usage';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function usageHandlers({ usage, priceSettings, budgets }: Pick<CoreServices, 'usage' | 'priceSettings' | 'budgets'>): ChannelHandlers<typeof usageChannels> {
  return {
    getRunUsage: (input) => usage.runUsage(input.runId),
    getUsageReport: (input) => usage.report(input),
    getPriceTable: () => priceSettings.get(),
    setPriceTable: (input) => priceSettings.set(input.table),
    listBudgets: () => budgets.list(),
    saveBudget: (input) => budgets.save(input),
    deleteBudget: (input) => budgets.delete(input.budgetId),
  };
}
