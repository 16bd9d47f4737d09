import { parseArgs } from 'node:util';
import { loadConfig } from '@oj/infra/config';
import { createRuntime } from '../../platform/runtime.ts';
import { seedJournals } from './generate.ts';

/**
 * `npm run seed -- --users N --trades M [--seed S] [--today YYYY-MM-DD]`: synthetic journals through
 * the command handler, into the configured stores (DATABASE_URL, or the embedded data directory).
 * The same seed and today give the same journals; running it again appends nothing.
 */
const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '3' },
    trades: { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    today: { type: 'string' },
  },
});
const users = Number(values.users);
const trades = Number(values.trades);
const seed = Number(values.seed);
if (![users, trades, seed].every((n) => Number.isInteger(n) && n >= 0)) {
  process.stderr.write('usage: npm run seed -- --users N --trades M [--seed S] [--today YYYY-MM-DD]\n');
  process.exit(2);
}
const config = loadConfig(process.env);
const runtime = await createRuntime(config);
try {
  const started = Date.now();
  const report = await seedJournals(
    { db: runtime.deps.database.db, eventStore: runtime.deps.eventStore, config },
    {
      users,
      tradesPerUser: trades,
      seed,
      ...(values.today ? { today: values.today } : {}),
      onProgress: (done, total) => {
        if (done % 100 === 0 || done === total) process.stderr.write(`\r${done}/${total} trades`);
      },
    },
  );
  process.stderr.write('\n');
  process.stdout.write(
    `${JSON.stringify({ users: report.users.map((u) => ({ email: u.email, password: u.password })), commands: report.commands, refused: report.refused, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`,
  );
} finally {
  await runtime.close();
}
