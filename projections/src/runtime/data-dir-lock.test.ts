import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '@oj/infra/config';
import { openDatabase } from '@oj/infra/db/database';
import { claimDataDir, DataDirBusyError } from './data-dir-lock.ts';

/**
 * A data directory that cannot be used is a setting to fix, said in one line (a ConfigError: the server
 * exits 2 with its message, the command-line tools print it), never a stack (QA 71: EROFS, "unreachable"
 * and "[object Object]" from every entry point).
 */
describe('an embedded data directory that cannot be used', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'oj-data-dir-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a DATA_DIR that is a file, or under one, names the directory and why', () => {
    const file = join(dir(), 'journal');
    writeFileSync(file, 'not a directory');
    for (const [path, why] of [
      [file, /it is a file \(EEXIST\)|a part of its path is a file \(ENOTDIR\)/],
      [join(file, 'data'), /a part of its path is a file \(ENOTDIR\)/],
    ] as const) {
      const error = (() => {
        try {
          claimDataDir(path);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(new RegExp(`^DATA_DIR: ${path.replace(/[/.]/g, '\\$&')} cannot be used: `));
      expect((error as Error).message).toMatch(why);
    }
  });

  it("the database folder inside a data directory is refused as DATA_DIR, naming its parent (an empty journal started inside it)", () => {
    const parent = dir();
    const pg = join(parent, 'pg');
    mkdirSync(pg);
    writeFileSync(join(pg, 'PG_VERSION'), '17\n');
    expect(() => claimDataDir(pg)).toThrow(new ConfigError(`DATA_DIR: ${pg} is the database folder of a data directory, not a data directory: give DATA_DIR its parent (${parent}).`));
    expect(() => claimDataDir(parent).release()).not.toThrow();
  });

  it('a directory held by a live process names it, and what to do when the pid file was copied', () => {
    const d = dir();
    writeFileSync(join(d, 'pglite.pid'), String(process.ppid));
    const error = (() => {
      try {
        claimDataDir(d);
      } catch (e) {
        return e;
      }
    })() as DataDirBusyError;
    expect(error).toBeInstanceOf(DataDirBusyError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`is in use by process ${process.ppid} (a running \`npm start\`, or a command-line tool working on this directory)`);
    expect(error.message).toContain(`delete ${join(d, 'pglite.pid')}`);
  });

  it('a database folder PGlite cannot open (another version, or not a journal) is refused in one line naming it', async () => {
    const pg = join(dir(), 'pg');
    mkdirSync(pg);
    writeFileSync(join(pg, 'PG_VERSION'), '18\n');
    writeFileSync(join(pg, 'base'), 'x');
    const error = await openDatabase({ dataDir: pg }).then(
      (db) => db.close().then(() => null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^DATA_DIR: the embedded database in ${pg.replace(/[/.]/g, '\\$&')} could not be opened \\(.+\\)\\. It was written by another version of PostgreSQL`));
  });
});
