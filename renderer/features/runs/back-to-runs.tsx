import { Link } from 'wouter';

/** The way back from a run, in its header and wherever a run cannot be shown. */
export function BackToRuns() {
  return (
    <Link href="/runs" className="button">
      Back to the run list
    </Link>
  );
}
