/**
 * `npm run bench -- <name> [options]`: benchmarks on real servers (DATABASE_URL, REDIS_URL). Each
 * subcommand lives in its own module and is loaded on demand, so one bench's imports never slow another.
 */
const benches: Record<string, () => Promise<{ main(argv: string[]): Promise<void> }>> = {
  projections: () => import('./projections.ts'),
  commands: () => import('./commands.ts'),
  dashboard: () => import('./dashboard.ts'),
  'trade-list': () => import('./trade-list.ts'),
  processes: () => import('./processes.ts'),
  soak: () => import('./soak.ts'),
  audit: () => import('./audit.ts'),
  startup: () => import('./startup.ts'),
};

const [name, ...rest] = process.argv.slice(2);
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`Usage: npm run bench -- <${Object.keys(benches).join('|')}> [options]`);
  process.exit(2);
}
try {
  await (await load()).main(rest);
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
