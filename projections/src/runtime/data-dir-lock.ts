import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, unusableDataDir } from '@oj/infra/config';

/** The claim: the holder's pid, in the data directory. */
const pidFile = (dataDir: string) => join(dataDir, 'pglite.pid');

/**
 * PGlite is one process: two processes opening the same data directory corrupt it. Whoever opens the
 * embedded database for long (the embedded projector, the projections CLI) claims the directory with
 * a pid file; a claim whose process is gone is stale and taken over.
 */
export class DataDirBusyError extends ConfigError {
  readonly pid: number;
  constructor(dir: string, pid: number) {
    super(
      `The embedded database in ${dir} is in use by process ${pid} (a running \`npm start\`, or a command-line tool working on this directory). ` +
        'PGlite is single-process: stop that process first, or run in services mode (DATABASE_URL) where the command-line tools work beside the running app. ' +
        `If process ${pid} is neither (the directory was copied with its pid file), delete ${pidFile(dir)}.`,
    );
    this.name = 'DataDirBusyError';
    this.pid = pid;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function dataDirHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether opening this configuration's store starts a new journal: embedded (no DATABASE_URL) and no
 * database folder in DATA_DIR yet. Asked before anything opens (or creates) it.
 */
export function startsNewJournal(config: { DATABASE_URL?: string | undefined; DATA_DIR: string }): boolean {
  return !config.DATABASE_URL && !existsSync(join(config.DATA_DIR, 'pg', 'PG_VERSION'));
}

/**
 * What a command-line tool says once it has opened a data directory that held no journal: opening one
 * starts a new, empty journal there, which is right before a first `npm start` (an admin created, a journal
 * seeded) and a mistyped DATA_DIR otherwise, whose answers (no versions, no such user) would read as the
 * real journal's (a status with nothing built, "not a Support or Admin user").
 */
export function newJournalNotice(dataDir: string): string {
  return `DATA_DIR ${resolve(dataDir)} held no journal: a new, empty one was started there. If your journal is elsewhere, set DATA_DIR to the directory \`npm start\` uses.`;
}

/** Claims `dataDir` for this process; throws DataDirBusyError when a live process holds it. */
export function claimDataDir(dataDir: string): { release(): void } {
  // The database folder inside a data directory is no data directory: opened as one, an empty journal
  // starts inside it, beside the real one (QA 71: DATA_DIR=.data/pg).
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new ConfigError(`DATA_DIR: ${dataDir} is the database folder of a data directory, not a data directory: give DATA_DIR its parent (${dirname(dataDir)}).`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw unusableDataDir(dataDir, error);
  }
  const file = pidFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusableDataDir(dataDir, error);
      const holder = dataDirHolder(dataDir);
      if (holder !== null) throw new DataDirBusyError(dataDir, holder);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not claim ${dataDir}`);
}
