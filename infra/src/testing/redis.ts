import { Redis } from 'ioredis';

/** Deletes every key under a BullMQ prefix (`<prefix>:*`): how tests and benchmarks sharing one Redis clean up after themselves. */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
