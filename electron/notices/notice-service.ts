import type { Notice } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { NewNotice } from '../ledger/notices-repository';
import type { EventHub } from '../transport/event-hub';

/** Notices: what the operator must act on, each naming the fix and linking to where to make it. */
export class NoticeService {
  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
  ) {}

  list(status: Notice['status'] | 'all'): Notice[] {
    return this.ledger.notices.list(status);
  }

  countOpen(): number {
    return this.ledger.notices.countOpen();
  }

  raise(notice: Omit<NewNotice, 'id' | 'createdAt'>): Notice {
    const raised = this.ledger.notices.raise({ ...notice, id: newId('ntc'), createdAt: this.now() });
    this.announce();
    return raised;
  }

  dismiss(noticeId: string): Notice {
    const notice = this.ledger.notices.setStatus(noticeId, 'dismissed', this.now());
    if (!notice) throw new OperatorError({ code: 'not_found', message: 'That notice is no longer in the console.' });
    this.announce();
    return notice;
  }

  private announce(): void {
    this.events.emit('noticesChanged', { open: this.countOpen() });
  }
}
