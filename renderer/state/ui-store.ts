import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { RunStatus } from '../../shared/entities';
import type { LandingState } from '../../shared/landing';

/**
 * UI state only: layout, filters, selections, which dialog is open. Server data never lives here; it
 * lives in TanStack Query, which pushed events keep fresh.
 */

export interface RunListFilters {
  status: RunStatus | null;
  agentId: string | null;
  projectId: string | null;
  landingState: LandingState | null;
}

export const noRunFilters: RunListFilters = { status: null, agentId: null, projectId: null, landingState: null };

export interface UiState {
  navCollapsed: boolean;
  toggleNav: () => void;

  runFilters: RunListFilters;
  setRunFilter: (patch: Partial<RunListFilters>) => void;
  clearRunFilters: () => void;

  /** The project the Tasks page showed last, used when its route names none. */
  tasksProjectId: string | null;
  setTasksProjectId: (projectId: string | null) => void;

  showArchivedTasks: boolean;
  setShowArchivedTasks: (show: boolean) => void;

  /** The agent picked last in a Run dialog, offered first next time. */
  runAgentId: string | null;
  setRunAgentId: (agentId: string | null) => void;

  showClosedNotices: boolean;
  setShowClosedNotices: (show: boolean) => void;

  folderBrowserOpen: boolean;
  setFolderBrowserOpen: (open: boolean) => void;

  /** The project whose removal awaits confirmation. */
  projectPendingRemoval: string | null;
  setProjectPendingRemoval: (projectId: string | null) => void;
}

export const useUiStore = create<UiState>()(
  persist(
    (set) => ({
      navCollapsed: false,
      toggleNav: () => set((state) => ({ navCollapsed: !state.navCollapsed })),

      runFilters: noRunFilters,
      setRunFilter: (patch) => set((state) => ({ runFilters: { ...state.runFilters, ...patch } })),
      clearRunFilters: () => set({ runFilters: noRunFilters }),

      tasksProjectId: null,
      setTasksProjectId: (tasksProjectId) => set({ tasksProjectId }),

      showArchivedTasks: false,
      setShowArchivedTasks: (showArchivedTasks) => set({ showArchivedTasks }),

      runAgentId: null,
      setRunAgentId: (runAgentId) => set({ runAgentId }),

      showClosedNotices: false,
      setShowClosedNotices: (showClosedNotices) => set({ showClosedNotices }),

      folderBrowserOpen: false,
      setFolderBrowserOpen: (folderBrowserOpen) => set({ folderBrowserOpen }),

      projectPendingRemoval: null,
      setProjectPendingRemoval: (projectPendingRemoval) => set({ projectPendingRemoval }),
    }),
    {
      name: 'operator-console.ui',
      version: 1,
      storage: createJSONStorage(() => localStorage),
      // Only layout preferences outlive a restart; filters and dialogs start fresh.
      partialize: (state) => ({ navCollapsed: state.navCollapsed }),
    },
  ),
);
