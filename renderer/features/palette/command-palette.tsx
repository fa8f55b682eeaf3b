import { Command } from 'cmdk';
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { ariaKeyShortcuts, currentShortcutPlatform, shortcutById } from '../../app/shortcuts';
import { noRunFilters } from '../../state/ui-store';
import { ModalDialog } from '../../ui/modal-dialog';
import { useAgents } from '../agents/use-agents';
import { useNotices } from '../notices/use-notices';
import { useProjects } from '../projects/use-projects';
import { useRunList } from '../runs/use-runs';
import { useTasks } from '../tasks/use-tasks';
import { buildPaletteGroups, buildShortcutGroup, filterPaletteGroups, withOutputSearch, type PaletteCommand } from './palette-items';
import type { PaletteView } from './palette-store';
import { SearchIcon } from './search-icon';
import { ShortcutKeys } from './shortcut-keys';
import { paletteDialogClass } from './use-shortcut-keys';
import './command-palette.css';

const inputLabels: Record<PaletteView, string> = {
  everything: 'Search runs, tasks, agents, notices and actions',
  shortcuts: 'Search keyboard shortcuts',
};

/** The lists the palette searches, from the same queries the pages use (so both stay in step). */
function usePaletteData() {
  const runs = useRunList(noRunFilters);
  const tasks = useTasks(undefined, false);
  const agents = useAgents();
  const notices = useNotices('open');
  const projects = useProjects();
  const queries = [runs, tasks, agents, notices, projects];
  const data = useMemo(
    () => ({
      runs: runs.data?.pages.flatMap((page) => page.runs) ?? [],
      tasks: tasks.data ?? [],
      agents: agents.data ?? [],
      notices: notices.data ?? [],
      projects: projects.data ?? [],
    }),
    [runs.data, tasks.data, agents.data, notices.data, projects.data],
  );
  return {
    data,
    loading: queries.some((query) => query.isPending),
    failed: queries.some((query) => query.isError),
  };
}

/**
 * The command palette: one field that finds runs, tasks, agents, open notices, pages and actions by
 * name. cmdk draws the listbox and moves the selection (arrows, Home/End, Enter); the app's own
 * modal dialog keeps focus inside, closes on Escape and gives focus back to where it was.
 */
export function CommandPalette({
  view,
  onViewChange,
  onClose,
  onCommand,
}: {
  view: PaletteView;
  onViewChange: (view: PaletteView) => void;
  onClose: () => void;
  onCommand: (command: PaletteCommand) => void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [platform] = useState(currentShortcutPlatform);
  // What was typed belongs to the view it was typed in: switching views starts with an empty field.
  const [typed, setTyped] = useState({ view, query: '' });
  const query = typed.view === view ? typed.query : '';
  const { data, loading, failed } = usePaletteData();

  const groups = useMemo(() => (view === 'shortcuts' ? [buildShortcutGroup()] : buildPaletteGroups(data)), [view, data]);
  const shown = useMemo(() => {
    const matching = filterPaletteGroups(groups, query);
    return view === 'everything' ? withOutputSearch(matching, query) : matching;
  }, [groups, query, view]);

  const switchView = (next: PaletteView) => {
    setTyped({ view: next, query: '' });
    onViewChange(next);
  };

  const choose = (command: PaletteCommand) => {
    // In the shortcut list, "Open the command palette" means the rest of the palette.
    if (command.kind === 'shortcut' && command.id === 'open-palette') switchView('everything');
    else onCommand(command);
  };

  const onInputKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Backspace in an empty field steps back from the shortcut list, as in other palettes with views.
    if (view === 'shortcuts' && event.key === 'Backspace' && query === '') {
      event.preventDefault();
      switchView('everything');
    }
  };

  return (
    <ModalDialog
      title={view === 'shortcuts' ? 'Keyboard shortcuts' : 'Command palette'}
      onClose={onClose}
      initialFocusRef={inputRef}
      className={paletteDialogClass}
      footer={
        <p className="command-palette__hints">
          <span>
            <kbd>↑</kbd> <kbd>↓</kbd> move
          </span>
          <span>
            <kbd>Enter</kbd> choose
          </span>
          <span>
            <kbd>Esc</kbd> close
          </span>
          {view === 'shortcuts' ? (
            <span>
              <kbd>Backspace</kbd> everything else
            </span>
          ) : null}
        </p>
      }
    >
      <Command label={inputLabels[view]} shouldFilter={false} loop vimBindings={false} className="command-palette__command">
        <div className="command-palette__search">
          <SearchIcon />
          <Command.Input
            ref={inputRef}
            className="command-palette__input"
            value={query}
            onValueChange={(next) => setTyped({ view, query: next })}
            onKeyDown={onInputKeyDown}
            placeholder={view === 'shortcuts' ? 'Filter shortcuts…' : 'Type a run, task, agent, notice or action…'}
          />
        </div>
        {failed && view === 'everything' ? (
          <p className="command-palette__note" role="alert">
            Some lists could not be loaded, so not everything can be found here. Their pages say why.
          </p>
        ) : null}
        <Command.List label="Results" className="command-palette__list">
          {loading && view === 'everything' ? (
            <Command.Loading label="Loading runs, tasks, agents and notices" className="command-palette__note">
              Loading runs, tasks, agents and notices…
            </Command.Loading>
          ) : null}
          <Command.Empty className="command-palette__note">Nothing matches “{query}”.</Command.Empty>
          {shown.map((group) => (
            <Command.Group key={group.id} heading={group.heading} className="command-palette__group">
              {group.items.map((item) => (
                <Command.Item
                  key={item.id}
                  value={item.id}
                  onSelect={() => choose(item.command)}
                  className="command-palette__item"
                  aria-keyshortcuts={item.shortcut ? ariaKeyShortcuts(shortcutById(item.shortcut), platform) : undefined}
                  aria-description={item.hint}
                >
                  <span className="command-palette__label">{item.label}</span>
                  {item.hint ? (
                    <span className="command-palette__hint" aria-hidden="true">
                      {item.hint}
                    </span>
                  ) : null}
                  {/* Beside an action the keys are a hint (aria-keyshortcuts says them, the shortcut list
                      spells sequences out); in the shortcut list they are the point, so part of the name. */}
                  {item.shortcut ? <ShortcutKeys id={item.shortcut} platform={platform} decorative={view === 'everything'} /> : null}
                </Command.Item>
              ))}
            </Command.Group>
          ))}
        </Command.List>
      </Command>
    </ModalDialog>
  );
}
