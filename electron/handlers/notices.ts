import type { noticeChannels } from '../../shared/channels/notices';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function noticeHandlers({ notices, runs }: Pick<CoreServices, 'notices' | 'runs'>): ChannelHandlers<typeof noticeChannels> {
  return {
    listNotices: (input) => notices.listAsked(input),
    countOpenNotices: () => ({ open: notices.countOpen() }),
    dismissNotice: (input) => notices.dismiss(input.noticeId),
    runAgain: (input) => runs.runAgain(input.noticeId),
  };
}
