import { createHash, randomBytes } from 'node:crypto';

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Time-ordered, so ids of events and
 * trades sort roughly by creation and index well. `now` is injectable for tests.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return format(bytes);
}

/**
 * A deterministic UUID (v8 layout, SHA-256 based) from its parts. Used for the event ids of a command
 * carrying an idempotency key: a retried command produces the same ids, and the store treats an append
 * of already-stored ids as a no-op.
 */
export function deterministicUuid(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return format(Buffer.from(bytes));
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * The 36 characters written into one buffer and decoded once, so the id is one flat string (56 bytes
 * of heap). Joined from slices of the hex text, it was a tree of nine small strings (about 300 bytes)
 * for as long as it lived, and ids live long: in the command handler's caches and lineage states,
 * which a soak fills at 300 commands a second (docs/performance.md, "Soak").
 */
function format(b: Buffer): string {
  const out = Buffer.allocUnsafe(36);
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = 0x2d;
    out[at++] = HEX_DIGITS[b[i]! >> 4]!;
    out[at++] = HEX_DIGITS[b[i]! & 0x0f]!;
  }
  return out.toString('latin1');
}
