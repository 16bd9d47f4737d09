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

/** What a loop on the signal is given (a polling subscription, a reader's wake-ups). */
export interface SignalOptions {
  signal: LocalSignal;
  pollIntervalMs: number;
  onClose: () => Promise<void>;
}

export interface PollingSubscriptionOptions extends SignalOptions {
  after: LogPosition;
  read: (after: LogPosition, limit: number) => Promise<StoredEvent[]>;
  /**
   * Whether events are committed that readers cannot see yet (held back behind an older transaction),
   * asked before each read. Their wake-up has come and gone, so the subscription reads again soon
   * instead of waiting for another. (A reader's wake-ups leave this to the reader: `headAndHeld`.)
   */
  pending?: () => Promise<boolean>;
  batchSize?: number;
}

/**
 * What a loop on the signal needs to end cleanly (a subscription's, a reader's wake-ups): a close that
 * ends its wait at once and runs `onClose` once the query in flight (tracked) has settled.
 */
class SignalLoop {
  closed = false;
  readonly #signal: LocalSignal;
  readonly #onClose: () => Promise<void>;
  #abortWait: (() => void) | null = null;
  #inflight: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | null = null;

  constructor(signal: LocalSignal, onClose: () => Promise<void>) {
    this.#signal = signal;
    this.#onClose = onClose;
  }

  /** Until the signal fires after generation `seen`, `ms` pass, or the loop is closed. */
  async wait(seen: number, ms: number): Promise<void> {
    const { done, abort } = this.#signal.wait(seen, ms);
    this.#abortWait = abort;
    await done;
    this.#abortWait = null;
  }

  /** A query the close waits for. */
  track<T>(query: Promise<T>): Promise<T> {
    this.#inflight = query.catch(() => {});
    return query;
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.closed = true;
      this.#abortWait?.();
      this.#closing = this.#inflight.then(() => this.#onClose());
    }
    return this.#closing;
  }
}

/**
 * The wait after a check for held-back events: while they are held, 10 ms, then twice as long each time up
 * to 250 ms (never beyond the poll); else the poll.
 */
class HeldBackoff {
  readonly #pollIntervalMs: number;
  #next = 10;

  constructor(pollIntervalMs: number) {
    this.#pollIntervalMs = pollIntervalMs;
  }

  after(held: boolean): number {
    if (!held) {
      this.#next = 10;
      return this.#pollIntervalMs;
    }
    const ms = Math.min(this.#next, this.#pollIntervalMs);
    this.#next = Math.min(this.#next * 2, 250);
    return ms;
  }
}

/**
 * Catch-up then live, on top of a store's `readAll`: reads batches after the last delivered position
 * until one comes back short, then sleeps until an append wakes it (or the fallback poll fires: a wake-up
 * can arrive before the appended events are visible to readers, or come from nowhere we can hear).
 * Delivery order is the store's log order; each event is delivered once per subscription.
 */
export function pollingSubscription(options: PollingSubscriptionOptions): Subscription {
  const batchSize = options.batchSize ?? 500;
  const loop = new SignalLoop(options.signal, options.onClose);
  const backoff = new HeldBackoff(options.pollIntervalMs);
  let cursor = options.after;

  async function* run(): AsyncGenerator<StoredEvent> {
    try {
      while (!loop.closed) {
        const seen = options.signal.generation;
        // Asked before the read: nothing held back then means the read gets every event committed until
        // then. Asked after it, the check could run once the hiding transaction had ended, find nothing
        // held, and leave what the read missed to the poll.
        const held = options.pending ? await loop.track(options.pending()) : false;
        if (loop.closed) return;
        const batch = await loop.track(options.read(cursor, batchSize));
        for (const event of batch) {
          if (loop.closed) return;
          cursor = event.position;
          yield event;
        }
        if (loop.closed) return;
        if (batch.length === batchSize) continue;
        await loop.wait(seen, backoff.after(held));
      }
    } finally {
      await loop.close();
    }
  }

  const iterator = run();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => loop.close(),
  };
}

/**
 * A polling subscription's wake-ups without its reads (`WakeUps`): the same signal and fallback poll,
 * each a wake-up for the reader to read with instead of a read of every new event here. Events held back
 * behind an older transaction are the reader's to notice (`headAndHeld`, asked before it reads): a check
 * here, beside the reader's read, could run after the older transaction ended and the read had missed
 * its events, and answer that nothing was held.
 */
export function signalWakeUps(options: SignalOptions): WakeUps {
  const loop = new SignalLoop(options.signal, options.onClose);

  async function* run(): AsyncGenerator<void> {
    try {
      let seen = options.signal.generation;
      while (!loop.closed) {
        await loop.wait(seen, options.pollIntervalMs);
        if (loop.closed) return;
        seen = options.signal.generation;
        yield;
      }
    } finally {
      await loop.close();
    }
  }

  const iterator = run();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => loop.close(),
  };
}
