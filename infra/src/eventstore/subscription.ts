import type { LogPosition, StoredEvent, Subscription, WakeUps } from './port.ts';

/**
 * Wakes waiting subscriptions when something was appended. The generation counter closes the gap
 * between "read found nothing new" and "start waiting": a wake-up in between is not lost.
 */
export class LocalSignal {
  generation = 0;
  readonly #waiters = new Set<() => void>();

  fire(): void {
    this.generation += 1;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const w of waiters) w();
  }

  /** Resolves on the next fire after `seen`, or after `ms`, or when `abort` is called. */
  wait(seen: number, ms: number): { done: Promise<void>; abort: () => void } {
    if (this.generation !== seen) return { done: Promise.resolve(), abort: () => {} };
    let abort!: () => void;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        waiters.delete(finish);
        resolve();
      }
      const waiters = this.#waiters;
      waiters.add(finish);
      abort = finish;
    });
    return { done, abort };
  }
}

export interface PollingSubscriptionOptions {
  after: LogPosition;
  read: (after: LogPosition, limit: number) => Promise<StoredEvent[]>;
  signal: LocalSignal;
  pollIntervalMs: number;
  /**
   * Whether events are committed that readers cannot see yet (held back behind an older transaction).
   * Their wake-up has come and gone, so the subscription re-reads soon instead of waiting for another.
   */
  pending?: () => Promise<boolean>;
  batchSize?: number;
  onClose: () => Promise<void>;
}

/**
 * Catch-up then live, on top of a store's `readAll`: reads batches after the last delivered position
 * until one comes back short, then sleeps until an append wakes it (or the fallback poll fires: a wake-up
 * can arrive before the appended events are visible to readers, or come from nowhere we can hear).
 * Delivery order is the store's log order; each event is delivered once per subscription.
 */
export function pollingSubscription(options: PollingSubscriptionOptions): Subscription {
  const batchSize = options.batchSize ?? 500;
  let closed = false;
  let abortWait: (() => void) | null = null;
  let inflight: Promise<unknown> = Promise.resolve();
  let closing: Promise<void> | null = null;
  let cursor = options.after;
  const quickest = 10;
  let backoff = quickest;

  async function* run(): AsyncGenerator<StoredEvent> {
    try {
      while (!closed) {
        const seen = options.signal.generation;
        const reading = options.read(cursor, batchSize);
        inflight = reading.catch(() => {});
        const batch = await reading;
        for (const event of batch) {
          if (closed) return;
          cursor = event.position;
          yield event;
        }
        if (closed) return;
        if (batch.length === batchSize) continue;
        let ms = options.pollIntervalMs;
        if (options.pending) {
          const checking = options.pending();
          inflight = checking.catch(() => {});
          if (await checking) {
            ms = Math.min(backoff, options.pollIntervalMs);
            backoff = Math.min(backoff * 2, 250);
          } else {
            backoff = quickest;
          }
          if (closed) return;
        }
        const { done, abort } = options.signal.wait(seen, ms);
        abortWait = abort;
        await done;
        abortWait = null;
      }
    } finally {
      await close();
    }
  }

  function close(): Promise<void> {
    if (!closing) {
      closed = true;
      abortWait?.();
      closing = inflight.then(() => options.onClose());
    }
    return closing;
  }

  const iterator = run();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close,
  };
}

export interface SignalWakeUpsOptions {
  signal: LocalSignal;
  pollIntervalMs: number;
  /** As the subscription's (`PollingSubscriptionOptions.pending`). */
  pending?: () => Promise<boolean>;
  onClose: () => Promise<void>;
}

/**
 * A polling subscription's wake-ups without its reads (`WakeUps`): the same signal, fallback poll and
 * re-reads while events are held back, each a wake-up for the reader to read with instead of a read of
 * every new event here. The reader's read and this check of held-back events run side by side; the
 * check's answer decides the next wait, as the subscription's does after its own read.
 */
export function signalWakeUps(options: SignalWakeUpsOptions): WakeUps {
  const quickest = 10;
  let closed = false;
  let abortWait: (() => void) | null = null;
  let inflight: Promise<unknown> = Promise.resolve();
  let closing: Promise<void> | null = null;

  async function* run(): AsyncGenerator<void> {
    try {
      let seen = options.signal.generation;
      let backoff = quickest;
      let ms = options.pollIntervalMs;
      while (!closed) {
        const { done, abort } = options.signal.wait(seen, ms);
        abortWait = abort;
        await done;
        abortWait = null;
        if (closed) return;
        seen = options.signal.generation;
        yield;
        if (closed || !options.pending) continue;
        const checking = options.pending();
        inflight = checking.catch(() => {});
        if (await checking) {
          ms = Math.min(backoff, options.pollIntervalMs);
          backoff = Math.min(backoff * 2, 250);
        } else {
          ms = options.pollIntervalMs;
          backoff = quickest;
        }
      }
    } finally {
      await close();
    }
  }

  function close(): Promise<void> {
    if (!closing) {
      closed = true;
      abortWait?.();
      closing = inflight.then(() => options.onClose());
    }
    return closing;
  }

  const iterator = run();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close,
  };
}
