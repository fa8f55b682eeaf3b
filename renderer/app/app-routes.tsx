import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { routePatterns } from '../../shared/routes';
import { AgentPage } from '../features/agents/agent-page';
import { AgentsPage } from '../features/agents/agents-page';
import { CleanupPage } from '../features/cleanup/cleanup-page';
import { ComparePage } from '../features/compare/compare-page';
import { NoticesPage } from '../features/notices/notices-page';
import { RunDetailPage } from '../features/runs/run-detail-page';
import { RunsPage } from '../features/runs/runs-page';
import { SearchPage } from '../features/search/search-page';
import { SettingsPage } from '../features/settings/settings-page';
import { TasksPage } from '../features/tasks/tasks-page';
import { Page } from '../ui/page';
import { Loading } from '../ui/query-error';
import { NotFoundPage } from './not-found-page';

// The chart library is a third of the bundle's weight: it loads with the Usage page, not at start.
const UsagePage = lazy(() => import('../features/usage/usage-page').then((module) => ({ default: module.UsagePage })));

function UsageRoute() {
  return (
    <Suspense
      fallback={
        <Page title="Usage">
          <Loading what="the Usage page" />
        </Page>
      }
    >
      <UsagePage />
    </Suspense>
  );
}

export function AppRoutes() {
  return (
    <Switch>
      <Route path="/">
        <Redirect to={routePatterns.runs} replace />
      </Route>
      <Route path={routePatterns.runs} component={RunsPage} />
      <Route path={routePatterns.run}>{(params) => <RunDetailPage runId={params.runId} />}</Route>
      <Route path={routePatterns.runChanges}>{(params) => <RunDetailPage runId={params.runId} section="changes" />}</Route>
      <Route path={routePatterns.tasks} component={TasksPage} />
      <Route path={routePatterns.taskCompare}>{(params) => <ComparePage taskId={params.taskId} />}</Route>
      <Route path={routePatterns.cleanup} component={CleanupPage} />
      <Route path={routePatterns.agents} component={AgentsPage} />
      <Route path={routePatterns.agent}>{(params) => <AgentPage agentId={params.agentId} />}</Route>
      <Route path={routePatterns.agentSetting}>
        {(params) => <AgentPage agentId={params.agentId} setting={params.setting} />}
      </Route>
      <Route path={routePatterns.settings}>
        <Redirect to="/settings/projects" replace />
      </Route>
      <Route path={routePatterns.settingsEnvironment}>
        {(params) => <SettingsPage section="environments" environmentId={params.environmentId} />}
      </Route>
      <Route path={routePatterns.settingsBudget}>{(params) => <SettingsPage section="budgets" budgetId={params.budgetId} />}</Route>
      <Route path={routePatterns.projectSetup}>{(params) => <SettingsPage section="projects" projectId={params.projectId} />}</Route>
      <Route path={routePatterns.settingsSection}>{(params) => <SettingsPage section={params.section} />}</Route>
      <Route path={routePatterns.notices} component={NoticesPage} />
      <Route path={routePatterns.usage} component={UsageRoute} />
      <Route path={routePatterns.search} component={SearchPage} />
      <Route component={NotFoundPage} />
    </Switch>
  );
}
