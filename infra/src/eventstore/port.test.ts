import { describe, expect, it } from 'vitest';
import { START, comparePositions, positionFromString, positionToString, type LogPosition } from './port.ts';

const positions: LogPosition[] = [
  { commit: 0n, prepare: 0n },
  { commit: 0n, prepare: 9n },
  { commit: 0n, prepare: 10n },
  { commit: 9n, prepare: 1n },
  { commit: 10n, prepare: 0n },
  { commit: 10n, prepare: 123456789n },
  { commit: 99999999999n, prepare: 5n },
  { commit: 2n ** 63n - 1n, prepare: 2n ** 63n - 1n },
];

describe('log positions', () => {
  it('compare by commit, then prepare', () => {
    for (let i = 0; i < positions.length; i++) {
      for (let j = 0; j < positions.length; j++) {
        expect(Math.sign(comparePositions(positions[i]!, positions[j]!))).toBe(Math.sign(i - j));
      }
    }
    expect(comparePositions(START, positions[0]!)).toBeLessThan(0);
  });

  it('text form sorts like the position (lexicographic order = log order), so 9 < 10', () => {
    const shuffled = [...positions].reverse();
    const byText = shuffled.map(positionToString).sort();
    expect(byText).toEqual(positions.map(positionToString));
    expect(byText.every((s) => s.length === byText[0]!.length)).toBe(true);
  });

  it('text form round-trips and holds no colon (BullMQ job ids)', () => {
    for (const p of [START, ...positions]) {
      const text = positionToString(p);
      expect(text).not.toContain(':');
      expect(positionFromString(text)).toEqual(p);
    }
    expect(positionToString(START)).toBe('start');
    expect(() => positionFromString('12')).toThrow('Not a log position');
  });
});
