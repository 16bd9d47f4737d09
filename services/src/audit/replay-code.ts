import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The fingerprint of the code a stored replay state depends on: the SHA-256 of the source text of every
 * module of this repository reachable by imports from the given roots (the projection's fold, rows and
 * day records, and the state codec). A stored state is only read under the fingerprint it was written
 * with, so any change to that code, a fix of the fold included, makes every stored state unreadable
 * until the maintenance job has folded the log again with the new code: a version number bumped by
 * hand would be forgotten some day, and a state folded by older code would then answer for the new one.
 * A change to a comment costs a refold too; that is the price of never trusting a forgotten bump.
 *
 * The code runs from its TypeScript sources (no build step), so the files read are the code that runs.
 */

const IMPORT = /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s)?\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

function repositoryRoot(from: string): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).workspaces) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`No workspace root above ${from}`);
    dir = up;
  }
}

/** A specifier's file, or null for a package outside the repository (node:, zod, kysely: their versions are not the fold's code). */
function resolve(root: string, spec: string, importer: string): string | null {
  if (spec.startsWith('.')) return join(dirname(importer), spec);
  // Workspace packages map `@oj/<package>/<path>` to `<package>/src/<path>.ts` (their package.json exports).
  const m = /^@oj\/([^/]+)\/(.+)$/.exec(spec);
  if (m) return join(root, m[1]!, 'src', `${m[2]}.ts`);
  return null;
}

/** Every repository module reachable from `roots`, by path relative to the repository root. */
export function moduleClosure(roots: readonly string[]): Map<string, string> {
  const root = repositoryRoot(roots[0]!);
  const seen = new Map<string, string>();
  const todo = [...roots];
  while (todo.length) {
    const file = todo.pop()!;
    const path = relative(root, file);
    if (seen.has(path)) continue;
    const text = readFileSync(file, 'utf8');
    seen.set(path, text);
    for (const m of text.matchAll(IMPORT)) {
      const next = resolve(root, (m[1] ?? m[2])!, file);
      if (next) todo.push(next);
    }
  }
  return seen;
}

/** SHA-256 (hex) of the closure's paths and texts, in path order. */
export function codeFingerprint(roots: readonly string[]): string {
  const hash = createHash('sha256');
  for (const [path, text] of [...moduleClosure(roots)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`${path}\u0000${text}\u0000`);
  return hash.digest('hex');
}

export const fileOf = (url: string | URL): string => fileURLToPath(url);
