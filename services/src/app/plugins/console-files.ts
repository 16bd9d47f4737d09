import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { chooseEncoding, type ContentEncoding } from './content-encoding.ts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};
/** Worth compressing: text. Pictures and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.webmanifest', '.map', '.txt', '.svg', '.ico']);
const MIN_COMPRESSED_SIZE = 1024;

/** One file of the console as it is sent: its bytes, and their brotli and gzip forms once made. */
export interface ConsoleFile {
  readonly type: string;
  readonly etag: string;
  readonly body: Buffer;
  readonly compressible: boolean;
  encoded: Partial<Record<ContentEncoding, Buffer>>;
  /** Settles once `encoded` is filled (at once for a file not worth compressing; a failure leaves it empty). */
  readonly compressed: Promise<void>;
  /** Size and mtime at reading: a file rewritten in place (a build published while it runs) is read again. */
  readonly stamp: string;
}

/**
 * The console's files, held in memory and sent each in one write (QA 78: streamed from disk in 64 KB
 * pieces, every piece waited for a turn of the event loop, which the embedded projector's catch-up holds
 * between lane batches: the sign-in page took 10.8 s to load during a 72,325-event catch-up). A file is
 * read when first asked for and read again when its size or mtime changed, so a build published while
 * the gateway runs is served at once; a file gone from the folder is forgotten. Text is compressed once,
 * off the event loop (zlib's thread pool), brotli (quality 5: 0.5 s of CPU for the whole build here, where
 * 9 took 5 s for 1% fewer bytes sent) and gzip; until that is done the file is sent as it is.
 */
export class ConsoleFiles {
  private readonly root: string;
  private readonly files = new Map<string, ConsoleFile>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /**
   * The file at `urlPath` (as the browser sent it, percent-encoded), null when there is none. Throws
   * `OutsideRootError` for a path that does not decode or names anything outside the folder.
   */
  get(urlPath: string): ConsoleFile | null {
    const full = this.resolve(urlPath);
    let stamp: string;
    try {
      const stat = statSync(full);
      if (!stat.isFile()) return null;
      stamp = `${stat.size}-${stat.mtimeMs}`;
    } catch {
      this.files.delete(full);
      return null;
    }
    const held = this.files.get(full);
    if (held?.stamp === stamp) return held;
    return this.read(full, stamp);
  }

  private read(full: string, stamp: string): ConsoleFile | null {
    let body: Buffer;
    try {
      body = readFileSync(full);
    } catch {
      this.files.delete(full);
      return null;
    }
    const ext = extname(full).toLowerCase();
    const compressible = COMPRESSIBLE.has(ext) && body.length >= MIN_COMPRESSED_SIZE;
    const encoded: ConsoleFile['encoded'] = {};
    const keep = (encoding: ContentEncoding) => (out: Buffer) => {
      if (out.length < body.length) encoded[encoding] = out;
    };
    const file: ConsoleFile = {
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      body,
      compressible,
      encoded,
      compressed: compressible
        ? Promise.all([
            brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }).then(keep('br')),
            gzipped(body, { level: 6 }).then(keep('gzip')),
          ]).then(
            () => undefined,
            () => undefined, // sent as it is
          )
        : Promise.resolve(),
      stamp,
    };
    this.files.set(full, file);
    return file;
  }

  private resolve(urlPath: string): string {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      throw new OutsideRootError(urlPath);
    }
    if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((part) => part === '..')) throw new OutsideRootError(urlPath);
    const full = resolve(this.root, `.${decoded}`);
    if (!full.startsWith(this.root + sep)) throw new OutsideRootError(urlPath);
    return full;
  }
}

export class OutsideRootError extends Error {
  constructor(path: string) {
    super(`not a file of the console: ${path.slice(0, 200)}`);
  }
}

/** The encoding to send a file in, from the request's Accept-Encoding: brotli, else gzip, else none. */
export function encodingFor(acceptEncoding: string | undefined, file: ConsoleFile): ContentEncoding | null {
  return file.compressible ? chooseEncoding(acceptEncoding, (encoding) => file.encoded[encoding] !== undefined) : null;
}

/** Whether an If-None-Match header names `etag` (weak comparison, as for a GET). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => bare(tag) === bare(etag));
}
