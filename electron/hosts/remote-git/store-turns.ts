/**
 * One change at a time to a project's git store on a host: a run's base sent into it
 * (send-base-revision.ts), or its removal once no run needs it (HostService.pruneGitStores). Without
 * this, a run starting while Clean up decided the store was unused would make its repository on the
 * host borrow from a store being removed under it. In-process: one console owns its hosts' folders.
 */
const turns = new Map<string, Promise<unknown>>();

export function withStoreTurn<T>(host: string, store: string, work: () => Promise<T>): Promise<T> {
  const key = `${host}\0${store}`;
  const before = turns.get(key) ?? Promise.resolve();
  const mine = before.then(work);
  const settled = mine.catch(() => undefined);
  turns.set(key, settled);
  void settled.then(() => {
    if (turns.get(key) === settled) turns.delete(key);
  });
  return mine;
}
