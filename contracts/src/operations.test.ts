import { describe, expect, it } from 'vitest';
import { builtVersionAdvice, codeVersionLabel, takeStreamEvents } from './operations.ts';

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

describe('code versions as every screen and tool names them (QA 73, 75)', () => {
  it('names formulas and code, or the formulas alone where they are one number', () => {
    expect(codeVersionLabel(203)).toBe('formulas v2 (code v203)');
    expect(codeVersionLabel(2)).toBe('formulas v2');
  });

  it('advises a switch for a version built by the running code, and abandoning one built by another release', () => {
    expect(builtVersionAdvice('trades', 204, 203, 203)).toEqual({ otherCode: false, text: 'compare with `diff trades`, then `switch trades 204`' });
    expect(builtVersionAdvice('trades', 103, 102, 203)).toEqual({
      otherCode: true,
      text: 'trades v103 was built by formulas v1 (code v102) and the code runs formulas v2 (code v203): it cannot catch up. Abandon it (`abandon trades --version 103`), then rebuild with this release.',
    });
  });
});
