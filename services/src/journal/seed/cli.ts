import { parseArgs } from 'node:util';
import { commandLineError } from '@oj/infra/command-line';
import { createCliRuntime } from '../../platform/runtime.ts';
import { tradeMessages } from '@oj/contracts/trades';
import { seedJournals } from './generate.ts';

/**
 * `npm run seed -- --users N --trades M [--seed S] [--today YYYY-MM-DD]`: synthetic journals through
 * the command handler, into the configured stores (DATABASE_URL, or the embedded data directory).
 * The same seed and today give the same journals; running it again appends nothing.
 */
const USAGE = `usage: npm run seed -- [--users N] [--trades M] [--seed S] [--today YYYY-MM-DD]
  --users N    traders to create (default 3), each a verified user with a trade account
  --trades M   trades per trader (default 50), opened, closed, rolled, split and edited through the command handler
  --seed S     the generator's seed (default 1): the same seed and today give the same journals
  --today D    the business date the journals end on (default today in New York)
  --migrate    upgrade a database an older release migrated (refused without it: copy the data first)
Prints each trader's e-mail and password. Writes to DATABASE_URL, or to the embedded DATA_DIR (stop \`npm start\` first).
`;
const options = {
  users: { type: 'string', default: '3' },
  trades: { type: 'string', default: '50' },
  seed: { type: 'string', default: '1' },
  today: { type: 'string' },
  migrate: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
let values: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];
let positionals: string[];
try {
  ({ values, positionals } = parseArgs({ options, allowPositionals: true }));
  // `help` as every CLI of the journal takes it; any other word is not an option of this one.
  if (positionals.length && !(positionals.length === 1 && positionals[0] === 'help')) throw new Error(`Unexpected argument '${positionals[0]}'`);
} catch (error) {
  // An unknown or malformed option: one line and the usage, not a stack trace (QA: `--help` crashed).
  process.stderr.write(`${commandLineError(error)}\n${USAGE}`);
  process.exit(2);
}
if (values.help || positionals.length) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const users = Number(values.users);
const trades = Number(values.trades);
const seed = Number(values.seed);
if (![users, trades, seed].every((n) => Number.isInteger(n) && n >= 0)) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const runtime = await createCliRuntime(process.env, (message) => process.stderr.write(`${message}\n`), { migrate: values.migrate === true });
if (!runtime) process.exit(1);
const { config } = runtime.deps;
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
    `${JSON.stringify({ users: report.users.map((u) => ({ email: u.email, password: u.password })), commands: report.commands, refused: report.refused, refusedBecause: report.refusedBecause, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`,
  );
  // Each command's key is the seed, the trader and the step: seeded before with another --today, the same
  // keys name other trades (QA 74: every one refused, with no word why).
  if (report.refusedBecause[tradeMessages.idempotencyReuse]) {
    process.stderr.write(
      `${report.refusedBecause[tradeMessages.idempotencyReuse]} commands were refused: these traders were seeded before with --seed ${seed} and another --today, and keep that journal. Use another --seed for another set of traders.\n`,
    );
  }
} finally {
  await runtime.close();
}
