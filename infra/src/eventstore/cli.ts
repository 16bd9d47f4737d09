import { parseArgs } from 'node:util';
import { commandLineError } from '../command-line.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { logOrigin, restampRestoredLog } from './log-origin.ts';

const usage = `Usage: npm run eventstore -- <command>

  check     whether the PostgreSQL event log's positions are this server's (exit 3 when they are not)
  restamp   after a logical restore into another cluster: give the log this server's positions, in its
            original order, and map every stored position (checkpoints) onto them. Every process of the
            app must be stopped. Does nothing on a log that needs nothing.

Uses DATABASE_URL (the embedded PGlite under DATA_DIR is copied as files and never needs it).`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${commandLineError(error)}\n${usage}`);
    return 2;
  }
  const command = parsed.positionals[0];
  if (parsed.values.help || command === 'help') {
    console.log(usage);
    return 0;
  }
  if (command !== 'check' && command !== 'restamp') {
    console.error(usage);
    return 2;
  }
  const config = loadConfig(process.env);
  if (!config.DATABASE_URL) {
    console.error('DATABASE_URL is not set: the embedded store is restored as files and keeps its positions.');
    return 2;
  }
  const database = await openDatabase({ url: config.DATABASE_URL, poolSize: 1, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
  try {
    if (command === 'check') {
      const origin = await logOrigin(database.db);
      console.log(JSON.stringify({ newest: origin.newest?.toString() ?? null, next: origin.next.toString(), foreign: origin.foreign }));
      return origin.foreign ? 3 : 0;
    }
    const result = await restampRestoredLog(database.db);
    if (!result.restamped) console.log('The log positions are already this server\'s: nothing to do.');
    else {
      console.log(`Restamped ${result.events} events in their original order.`);
      for (const t of result.positionTables) console.log(`  positions mapped in ${t.table}: ${t.rows} rows`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(error);
    process.exit(1);
  },
);
