import type { FastifyInstance } from 'fastify';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { chooseEncoding, varyOnEncoding, type ContentEncoding } from './content-encoding.ts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Below this an answer goes as it is: it fits a packet or two either way, and compressing costs a thread-pool hop. */
export const MIN_COMPRESSED_ANSWER = 1024;
/** JSON: every answer of the API, of its OpenAPI document and of the queues board's API. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Made per answer, so the cheap levels: on a 1,500-trade journal's premium data (195,636 bytes) brotli 4
 * makes 34,648 bytes in 1.9 ms and gzip 4 (what a browser gets over plain HTTP, where it offers no
 * brotli) 37,343 in 1.5 ms; brotli 5 and gzip 6 save 2 to 3 KB more for 1.5 to 2.8 times the CPU. A
 * 50-row trade page: 29,749 bytes to 5,150 in 0.2 ms. (AMD EPYC, 2 cores, 7 December 2026.)
 */
const compress: Record<ContentEncoding, (body: Buffer | string) => Promise<Buffer>> = {
  br: (body) => brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } }),
  gzip: (body) => gzipped(body, { level: 4 }),
};

/**
 * The API's JSON answers compressed for a client that accepts it (brotli, else gzip), as the console's
 * files are (console-files.ts). A journal's premium data is 190 KB of numbers for any journal, and a
 * trade list's page of 50 about 40 KB: on a phone's network most of a screen's wait was those bytes. The
 * work runs in zlib's thread pool, off the event loop. Answers under MIN_COMPRESSED_ANSWER, streams (a
 * picture, the operations console's events) and any answer already encoded go as they are; an answer
 * that would not shrink goes as it is too. A client that sends no Accept-Encoding (the tests' inject,
 * curl, the benches' HTTP clients) gets the plain bytes, and every compressible answer says it varies by
 * Accept-Encoding, for a cache in between.
 */
export function registerAnswerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('content-encoding') || !JSON_TYPE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    const size = Buffer.byteLength(payload);
    if (size < MIN_COMPRESSED_ANSWER) return payload;
    reply.header('vary', varyOnEncoding(reply.getHeader('vary')));
    const encoding = request.method === 'HEAD' ? null : chooseEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    const encoded = await compress[encoding](payload);
    if (encoded.length >= size) return payload;
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return encoded;
  });
}
