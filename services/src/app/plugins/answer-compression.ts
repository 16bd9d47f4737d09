import type { FastifyInstance } from 'fastify';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { chooseEncoding, varyOnEncoding, type ContentEncoding } from './content-encoding.ts';
import { registeredCounter } from './observability.ts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Below this an answer goes as it is: it fits a packet or two either way, and compressing costs a thread-pool hop. */
export const MIN_COMPRESSED_ANSWER = 1024;
/** JSON: every answer of the API, of its OpenAPI document and of the queues board's API. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Made per answer, so the cheapest levels that still shrink JSON about fivefold: on a 1,500-trade
 * journal's premium data (195,636 bytes) brotli 1 makes 39 KB in 0.6 ms and gzip 1 (what a client gets
 * that offers no brotli: a browser over plain HTTP, Node's fetch) 41 KB in 1.0 ms, where brotli 4 and
 * gzip 4 saved 2 to 5 KB more for 1.5 to 3 times the CPU. (AMD EPYC, 2 cores, 7 December 2026.)
 */
const compress: Record<ContentEncoding, (body: Buffer | string, size: number) => Promise<Buffer>> = {
  br: (body, size) => brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1, [zlib.BROTLI_PARAM_SIZE_HINT]: size } }),
  gzip: (body) => gzipped(body, { level: 1 }),
};

/** The event loop busy more than this share of the last window: the process has no CPU to spare for compressing. */
export const BUSY_UTILIZATION = 0.5;
const WINDOW_MS = 500;

/**
 * Whether the process's event loop was busy more than BUSY_UTILIZATION of the last window (Node's own
 * event loop utilisation, read every WINDOW_MS). Stops with `stop`.
 */
export function eventLoopBusy(): { busy: () => boolean; stop: () => void } {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let busy = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(now, last).utilization > BUSY_UTILIZATION;
    last = now;
  }, WINDOW_MS);
  timer.unref();
  return { busy: () => busy, stop: () => clearInterval(timer) };
}

export interface AnswerCompressionOptions {
  /** Whether to send answers as they are for now, to spare the CPU (default: `eventLoopBusy`). */
  busy?: () => boolean;
}

/**
 * The API's JSON answers compressed for a client that accepts it (brotli, else gzip), as the console's
 * files are (console-files.ts). A journal's premium data is 190 KB of numbers for any journal, and a
 * trade list's page of 50 about 30 KB: on a phone's network most of a screen's wait was those bytes. The
 * work runs in zlib's thread pool, off the event loop. Answers under MIN_COMPRESSED_ANSWER, streams (a
 * picture, the operations console's events) and any answer already encoded go as they are; an answer
 * that would not shrink goes as it is too. A client that sends no Accept-Encoding (the tests' inject,
 * curl, the commands bench's client) gets the plain bytes, and every compressible answer says it varies
 * by Accept-Encoding, for a cache in between.
 *
 * Compression is for spare CPU: while the event loop is busy more than half the time, answers go as they
 * are. At the soak's load on two cores (300 commands and 100 reads a second, docs/performance.md) the
 * machine is at its knee, and compressing every answer there (gzip 4) had the gateway refuse 22,396
 * requests as busy in 10 minutes against 164 without, with queries' p50 two to five times longer.
 */
export function registerAnswerCompression(app: FastifyInstance, options: AnswerCompressionOptions = {}): void {
  const loop = options.busy ? null : eventLoopBusy();
  if (loop) app.addHook('onClose', async () => loop.stop());
  const busy = options.busy ?? loop!.busy;
  // How the compressible answers went, for an operator weighing the CPU against the bytes (`/metrics`).
  const registry = app.hasDecorator('deps') ? app.deps.metrics : undefined;
  const sent = registry
    ? registeredCounter(registry, 'http_answers_compressible_total', 'JSON answers of 1 KB or more, by how they were sent: br, gzip, plain (the client takes neither), busy (sent plain to spare the CPU)', ['sent'])
    : undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('content-encoding') || !JSON_TYPE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    const size = Buffer.byteLength(payload);
    if (size < MIN_COMPRESSED_ANSWER) return payload;
    reply.header('vary', varyOnEncoding(reply.getHeader('vary')));
    const encoding = request.method === 'HEAD' ? null : chooseEncoding(request.headers['accept-encoding']);
    if (!encoding || busy()) {
      sent?.inc({ sent: encoding ? 'busy' : 'plain' });
      return payload;
    }
    const encoded = await compress[encoding](payload, size);
    if (encoded.length >= size) {
      sent?.inc({ sent: 'plain' });
      return payload;
    }
    sent?.inc({ sent: encoding });
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return encoded;
  });
}
