/**
 * The window title: the page's own title, after the count of open notices when there are any
 * (`(3) Runs · Operator Console`), so a console in a background tab or behind other windows still says
 * that something needs the operator. The page and the notice count are set from different places (each
 * page, and the notifications host), so the title is composed here from both.
 */

const product = 'Operator Console';
let pageTitle: string | undefined;
let openNotices = 0;

export function composeDocumentTitle(page: string | undefined, open: number): string {
  const base = page ? `${page} · ${product}` : product;
  return open > 0 ? `(${open > 99 ? '99+' : open}) ${base}` : base;
}

function apply(): void {
  document.title = composeDocumentTitle(pageTitle, openNotices);
}

/** The page shown now names itself (undefined: no title of its own). */
export function setPageTitle(title: string | undefined): void {
  pageTitle = title;
  apply();
}

/** How many notices are open now. */
export function setOpenNoticeCount(count: number): void {
  openNotices = Math.max(0, count);
  apply();
}
