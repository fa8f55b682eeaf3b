import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * With OC_BENCH_PROFILE=<file.cpuprofile>, a CPU profile of the main thread (the event loop that
 * reads the PTYs) over the benchmark, to open in Chrome DevTools or VS Code: where the time goes.
 */
export async function profileMainThread(): Promise<() => Promise<void>> {
  const file = process.env.OC_BENCH_PROFILE;
  if (!file) return () => Promise.resolve();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    console.log(`CPU profile of the main thread: ${file}`);
  };
}
