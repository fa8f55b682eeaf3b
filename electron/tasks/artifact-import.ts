import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** A plan/review pair a project keeps under `agent-task/`, found by `findArtifactPairs`. */
export interface ArtifactPair {
  /** Paths relative to the project root, with forward slashes, as the agent will be told them. */
  planPath: string;
  reviewPath: string;
  title: string;
}

export interface ArtifactScan {
  pairs: ArtifactPair[];
  /** Plans or reviews that could not be paired, with why, so the operator is not left guessing. */
  unpaired: Array<{ path: string; reason: string }>;
}

const planPattern = /^PLAN-(.+)\.md$/;
const reviewPattern = /^CODE_REVIEW-(.+)\.md$/;
/** Folders deeper than this under agent-task/ are not walked (a guard against symlink loops). */
const maxDepth = 8;

/**
 * Walks `<project>/agent-task/**` for `PLAN-*.md` + `CODE_REVIEW-*.md` pairs. In one folder, a plan
 * pairs with the review of the same suffix, or, when the folder holds exactly one of each, with that
 * one (plans and reviews are often named for different things, e.g. PLAN-api.md + CODE_REVIEW-1.md).
 */
export async function findArtifactPairs(projectDir: string): Promise<ArtifactScan> {
  const root = path.join(projectDir, 'agent-task');
  const scan: ArtifactScan = { pairs: [], unpaired: [] };
  await walk(root, 0, async (dir, files) => {
    const plans = files.filter((name) => planPattern.test(name)).sort();
    const reviews = files.filter((name) => reviewPattern.test(name)).sort();
    const relative = (name: string) => path.relative(projectDir, path.join(dir, name)).split(path.sep).join('/');
    const usedReviews = new Set<string>();
    const leftoverPlans: string[] = [];
    for (const plan of plans) {
      const suffix = planPattern.exec(plan)![1];
      const review = reviews.find((name) => reviewPattern.exec(name)![1] === suffix);
      if (review) {
        usedReviews.add(review);
        scan.pairs.push({ planPath: relative(plan), reviewPath: relative(review), title: await planTitle(path.join(dir, plan), dir) });
      } else {
        leftoverPlans.push(plan);
      }
    }
    const leftoverReviews = reviews.filter((name) => !usedReviews.has(name));
    if (leftoverPlans.length === 1 && leftoverReviews.length === 1) {
      const [plan, review] = [leftoverPlans[0]!, leftoverReviews[0]!];
      scan.pairs.push({ planPath: relative(plan), reviewPath: relative(review), title: await planTitle(path.join(dir, plan), dir) });
      return;
    }
    for (const plan of leftoverPlans) scan.unpaired.push({ path: relative(plan), reason: 'no CODE_REVIEW-*.md beside it to pair with' });
    for (const review of leftoverReviews) scan.unpaired.push({ path: relative(review), reason: 'no PLAN-*.md beside it to pair with' });
  });
  scan.pairs.sort((a, b) => a.planPath.localeCompare(b.planPath));
  return scan;
}

async function walk(dir: string, depth: number, visit: (dir: string, files: string[]) => Promise<void>): Promise<void> {
  if (depth > maxDepth) return;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // No agent-task/ folder (or an unreadable one): nothing to import from there.
  }
  await visit(
    dir,
    entries.filter((entry) => entry.isFile()).map((entry) => entry.name),
  );
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(path.join(dir, entry.name), depth + 1, visit);
  }
}

/** The plan's first Markdown heading, else its folder's name (e.g. `3_add-retries`). */
async function planTitle(planFile: string, dir: string): Promise<string> {
  try {
    const text = await readFile(planFile, 'utf8');
    const heading = /^#{1,3}\s+(.+?)\s*#*\s*$/m.exec(text.slice(0, 8192));
    if (heading) return heading[1]!.slice(0, 200);
  } catch {
    // Fall through to the folder name.
  }
  return path.basename(dir);
}
