import { Agent, request as httpRequest } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The load generator of `bench commands`, in its own thread so that the HTTP clients do not take event
 * loop time from the gateway under test. Each of `level` clients loops "open a trade, close it".
 */
interface ClientJob {
  address: string;
  headers: Record<string, string>;
  openBody: string;
  closeBody: string;
  level: number;
  seconds: number;
}
const job = workerData as ClientJob;
const agent = new Agent({ keepAlive: true, maxSockets: job.level });
const post = (path: string, body: string) =>
  new Promise<{ ms: number; text: string }>((resolve, reject) => {
    const t0 = performance.now();
    const req = httpRequest(`${job.address}/api/v1${path}`, { method: 'POST', headers: { ...job.headers, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${path}: ${res.statusCode} ${text}`));
        else resolve({ ms: performance.now() - t0, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const latencies: number[] = [];
let errors = 0;
let firstError: string | null = null;
const started = performance.now();
const deadline = started + job.seconds * 1000;
await Promise.all(
  Array.from({ length: job.level }, async () => {
    while (performance.now() < deadline) {
      try {
        const opened = await post('/trades/add-trade', job.openBody);
        latencies.push(opened.ms);
        const uid = (JSON.parse(opened.text) as { uid: string }).uid;
        const closed = await post(`/trades/close/${uid}`, job.closeBody);
        latencies.push(closed.ms);
      } catch (error) {
        errors++;
        firstError ??= String(error);
      }
    }
  }),
);
agent.destroy();
parentPort!.postMessage({ latencies, elapsed: (performance.now() - started) / 1000, errors, firstError });
