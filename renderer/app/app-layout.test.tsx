import { screen, waitFor } from '@testing-library/react';
import { useEffect, useRef, useState } from 'react';
import { Link, Route, Switch } from 'wouter';
import { describe, expect, it } from 'vitest';
import { fakeOperatorClient } from '../testing/fake-operator-client';
import { renderInConsole } from '../testing/render-in-console';
import { Page } from '../ui/page';
import { focusRouteTarget } from '../ui/route-focus';
import { AppLayout } from './app-layout';

/** A page with a link to the next one, as the Notices page has to a notice's fix. */
function NoticesLike() {
  return (
    <Page title="Notices">
      <Link href="/settings/field">Open the setting</Link>
      <Link href="/runs/page">Open the run</Link>
    </Page>
  );
}

/** A page whose route names a field: it focuses it once the field shows (`late`: after its data loads). */
function PageWithField({ late }: { late: boolean }) {
  const [shown, setShown] = useState(!late);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (shown) return;
    const timer = setTimeout(() => setShown(true), 10);
    return () => clearTimeout(timer);
  }, [shown]);
  useEffect(() => {
    if (shown) focusRouteTarget(field.current);
  }, [shown]);
  return <Page title="Settings">{shown ? <input ref={field} aria-label="Setup command" /> : <p>Loading…</p>}</Page>;
}

function showConsole(late: boolean) {
  const client = fakeOperatorClient({ countOpenNotices: () => ({ open: 0 }), getServiceState: () => ({ consoleVersion: '0.1.0', handingOverTo: null }) });
  return renderInConsole(
    <AppLayout>
      <Switch>
        <Route path="/notices" component={NoticesLike} />
        <Route path="/settings/field">{() => <PageWithField late={late} />}</Route>
        <Route path="/runs/page">{() => <Page title="Run">The run</Page>}</Route>
      </Switch>
    </AppLayout>,
    { client, route: '/notices' },
  );
}

describe('focus after moving to another page', () => {
  it('lands on the field the route names when the page shows it at once, not on the heading', async () => {
    const { user } = showConsole(false);
    await user.click(screen.getByRole('link', { name: 'Open the setting' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Setup command' })));
  });

  it('lands on the field when it shows later, after its data', async () => {
    const { user } = showConsole(true);
    await user.click(screen.getByRole('link', { name: 'Open the setting' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Setup command' })));
  });

  it('lands on the heading of a page whose route names no field', async () => {
    const { user } = showConsole(false);
    await user.click(screen.getByRole('link', { name: 'Open the run' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: 'Run' })));
  });
});
