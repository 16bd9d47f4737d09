import type { StartupProgress } from '@oj/contracts/common';

const PREPARING: StartupProgress = { phase: 'preparing', done: 0, total: null, retrying: false };

/**
 * Holds the API while the projector in this process makes its read models answer for the whole log
 * (embedded mode: a release's start-up rebuild, or the catch-up of a journal seeded or restored while
 * stopped). The process listens from the start, so the console loads and shows the progress; every API
 * answer but health and readiness is a 503 naming it (plugins/load-shedding.ts). Before, the port stayed
 * closed until the read models were built (QA 73: 3 to 6 s, and for a journal of millions of events the
 * whole rebuild), and a gateway that listened earlier would have served figures from read models still
 * behind or built by the formulas of the release before.
 *
 * Open unless something holds it: a process without a projector of its own (the services gateway)
 * never does.
 */
export class StartupGate {
  #progress: (() => StartupProgress | null) | null = null;
  #opened: Promise<void> = Promise.resolve();
  #open: () => void = () => undefined;

  /** Held (preparing) until the work that holds it starts (`follow`), or until `open`. */
  hold(): void {
    if (this.#progress) return;
    this.#progress = () => PREPARING;
    this.#opened = new Promise<void>((resolve) => (this.#open = resolve));
  }

  /**
   * Held while `progress` says what the start does, until `done` resolves. It rejects when the projector
   * stops first: the process is ending, and the gate stays held (QA 78: opened then, the log said the read
   * models were up to date after "shutting down").
   */
  follow(progress: () => StartupProgress | null, done: Promise<void>): void {
    this.hold();
    this.#progress = progress;
    void done.then(
      () => this.open(),
      () => undefined,
    );
  }

  open(): void {
    this.#progress = null;
    this.#open();
  }

  /** What the start still does, or null once the API answers. */
  current(): StartupProgress | null {
    return this.#progress?.() ?? null;
  }

  /** Settles once the gate is open. */
  get opened(): Promise<void> {
    return this.#opened;
  }
}
