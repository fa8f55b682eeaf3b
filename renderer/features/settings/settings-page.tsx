import { Link, useSearch } from 'wouter';
import { NotFoundPage } from '../../app/not-found-page';
import { Page } from '../../ui/page';
import { NotificationsSection } from '../notifications/notifications-section';
import { AboutSection } from './about-section';
import { budgetFilterFromSearch } from '../budgets/budget-links';
import { BudgetsSection } from '../budgets/budgets-section';
import { EnvironmentsSection } from '../environments/environments-section';
import { HostsSection } from '../hosts/hosts-section';
import { PricesSection, priceToAddFromSearch } from '../usage/prices-section';
import { AiConnectionsSection } from './ai-connections-section';
import { ProjectSetupSection, isProjectSetupField } from './project-setup-section';
import { ProjectsSection } from './projects-section';

export const settingsSections = [
  { id: 'projects', label: 'Projects' },
  { id: 'environments', label: 'Environments' },
  { id: 'hosts', label: 'Hosts' },
  { id: 'ai-connections', label: 'AI connections' },
  { id: 'budgets', label: 'Budgets' },
  { id: 'prices', label: 'Prices' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'about', label: 'About' },
] as const;

export type SettingsSectionId = (typeof settingsSections)[number]['id'];

export function isSettingsSection(value: string | undefined): value is SettingsSectionId {
  return settingsSections.some((section) => section.id === value);
}

/**
 * Settings, one section at a time. `environmentId` comes from `/settings/environments/<id>` (an
 * action link's route): that environment is brought into view, and `?allow=<host>` opens its form
 * with the host filled in. `projectId`: Settings → Projects → that project's setup (the
 * `project-setup` action route), `?field=` the field to focus. `budgetId`: `/settings/budgets/<id>` (a
 * "Budget reached" notice's link) brings that budget into view with its limit focused; `?agent=` or
 * `?connection=` shows one target's budgets.
 */
export function SettingsPage({
  section,
  environmentId,
  projectId,
  budgetId,
}: {
  section: string | undefined;
  environmentId?: string;
  projectId?: string;
  budgetId?: string;
}) {
  const search = useSearch();
  if (!isSettingsSection(section)) return <NotFoundPage />;
  const allowHost = section === 'environments' ? (new URLSearchParams(search).get('allow') ?? undefined) : undefined;
  const field = new URLSearchParams(search).get('field');
  const current = settingsSections.find((candidate) => candidate.id === section)!;
  return (
    <Page title="Settings" documentTitle={`${current.label} · Settings`} className="settings-page">
      <div className="settings-layout">
        <nav className="sub-nav" aria-label="Settings sections">
          <ul>
            {settingsSections.map((candidate) => (
              <li key={candidate.id}>
                <Link
                  href={`/settings/${candidate.id}`}
                  className="sub-nav__link"
                  aria-current={candidate.id === section ? 'page' : undefined}
                >
                  {candidate.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="settings-layout__content">
          {section === 'projects' && projectId === undefined ? <ProjectsSection /> : null}
          {section === 'projects' && projectId !== undefined ? <ProjectSetupSection projectId={projectId} field={isProjectSetupField(field) ? field : null} /> : null}
          {section === 'environments' ? <EnvironmentsSection environmentId={environmentId} allowHost={allowHost} /> : null}
          {section === 'hosts' ? <HostsSection /> : null}
          {section === 'ai-connections' ? <AiConnectionsSection /> : null}
          {section === 'budgets' ? <BudgetsSection budgetId={budgetId} filter={budgetFilterFromSearch(search)} /> : null}
          {section === 'prices' ? <PricesSection addPrice={priceToAddFromSearch(search)} /> : null}
          {section === 'notifications' ? <NotificationsSection /> : null}
          {section === 'about' ? <AboutSection /> : null}
        </div>
      </div>
    </Page>
  );
}
