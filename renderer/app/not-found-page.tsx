import { Link } from 'wouter';
import { Page } from '../ui/page';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <div className="empty-state">
        <p className="empty-state__body">There is nothing at this address in the console.</p>
        <div className="empty-state__action">
          <Link href="/runs" className="button button--primary">
            Back to the run list
          </Link>
        </div>
      </div>
    </Page>
  );
}
