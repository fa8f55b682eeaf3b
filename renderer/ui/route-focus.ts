/**
 * Brings what an action route names into view and gives it focus: the field a notice's link opens
 * (a project's setup command, a budget's limit, an environment's allowed hosts, an agent's AI
 * connection). Call it from the page's effect once the field is on the page, in the commit that shows
 * it or any later one: the layout moves focus to a new page's heading only when the page has not
 * taken focus itself (app/app-layout.tsx), so the named field wins either way.
 *
 * `view`: what to scroll into view when it is more than the field (its section, its row), and where
 * in the viewport (`block`, default the middle). Answers whether there was a field to focus.
 */
export function focusRouteTarget(
  field: HTMLElement | null | undefined,
  view: { element?: HTMLElement | null | undefined; block?: ScrollLogicalPosition } = {},
): boolean {
  if (!field) return false;
  (view.element ?? field).scrollIntoView({ block: view.block ?? 'center' });
  field.focus({ preventScroll: true });
  return true;
}
