import { useCallback, useRef, useState } from 'react';

export interface SingleSubmit {
  /** A submission is on its way: for the screen (progress, aria-disabled on the submit button). */
  pending: boolean;
  /**
   * Runs `work` unless a submission is on its way already, in which case the call does nothing.
   * `work` returns the request's promise (a mutation's `mutateAsync`), or nothing when it sent none
   * (a field the form refused): only a promise holds the next submission back, until it settles.
   */
  submit: (work: () => Promise<unknown> | undefined) => void;
}

/**
 * One submission at a time, for every control that sends a change to the console: a dialog's
 * submit, a confirmation, a form's Save. A mutation's own `isPending` comes too late for a double
 * click (or Enter pressed twice): it is read from the last render, and the second click can arrive
 * before the first one's render, which would send the request twice (a run landed twice, two runs
 * started). The flag here is set in the first click's own handler, so the second one sees it.
 *
 * A failed request is not thrown again: the mutation keeps its error, which the dialog shows.
 */
export function useSingleSubmit(): SingleSubmit {
  const onItsWay = useRef(false);
  const [pending, setPending] = useState(false);
  const submit = useCallback((work: () => Promise<unknown> | undefined) => {
    if (onItsWay.current) return;
    const sent = work();
    if (!sent) return;
    onItsWay.current = true;
    setPending(true);
    void sent
      .catch(() => undefined)
      .finally(() => {
        onItsWay.current = false;
        setPending(false);
      });
  }, []);
  return { pending, submit };
}
