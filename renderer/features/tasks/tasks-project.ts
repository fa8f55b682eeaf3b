/**
 * Which project the Tasks page shows: the one its route names (`/tasks?project=...`, as action links
 * build it), else the one shown last, else the first. Null when that project is not (or no longer)
 * in the console and there is none to fall back to.
 */
export function chooseTasksProject(
  projects: readonly { id: string }[],
  fromRoute: string | null,
  remembered: string | null,
): string | null {
  const known = (id: string | null) => (id !== null && projects.some((project) => project.id === id) ? id : null);
  return known(fromRoute) ?? known(remembered) ?? projects[0]?.id ?? null;
}

/** The first line of a prompt, shortened for a list. */
export function promptPreview(prompt: string, maxLength = 160): string {
  const firstLine = prompt.trim().split(/\r?\n/, 1)[0] ?? '';
  return firstLine.length > maxLength ? `${firstLine.slice(0, maxLength - 1).trimEnd()}…` : firstLine;
}
