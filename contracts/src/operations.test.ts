import { describe, expect, it } from 'vitest';
import { takeStreamEvents } from './operations.ts';

describe('takeStreamEvents', () => {
  it('takes the complete events, skips pings, and keeps an event still arriving for the next chunk', () => {
    const first = takeStreamEvents('event: snapshot\ndata: {"a":1}\n\n: ping\n\nevent: lag\ndata: {"b"');
    expect(first.events).toEqual([{ event: 'snapshot', data: { a: 1 } }]);
    expect(first.rest).toBe('event: lag\ndata: {"b"');
    const second = takeStreamEvents(`${first.rest}:2}\n\n`);
    expect(second.events).toEqual([{ event: 'lag', data: { b: 2 } }]);
    expect(second.rest).toBe('');
  });
});
