import { newYorkDate } from '@oj/contracts/business-date';

/** Time comes in from outside so that tests control it; domain code never calls `new Date()`. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and move. */
export class FixedClock implements Clock {
  #now: Date;
  constructor(start: Date | string) {
    this.#now = new Date(start);
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(to: Date | string): void {
    this.#now = new Date(to);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

export const businessDateOf = (clock: Clock): string => newYorkDate(clock.now());
