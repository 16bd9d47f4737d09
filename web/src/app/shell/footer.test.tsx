import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Footer } from './footer.tsx';

const copyright = () => /© (\d{4})/.exec(renderToStaticMarkup(<MemoryRouter><Footer /></MemoryRouter>))?.[1];

describe('the footer', () => {
  afterEach(() => vi.useRealTimers());

  it("says New York's year, whatever the browser's zone (QA: a Tokyo browser read 2027 on New York's 31 December)", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2027-01-01T03:30:00Z')); // 22:30 on 31 December in New York, 12:30 on 1 January in Tokyo
    expect(copyright()).toBe('2026');
    vi.setSystemTime(new Date('2027-01-01T05:30:00Z')); // 00:30 on 1 January in New York
    expect(copyright()).toBe('2027');
  });
});
