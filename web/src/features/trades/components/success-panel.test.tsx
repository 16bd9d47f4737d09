// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { SUCCESS_SETTLE_MS, SuccessPanel } from './success-panel.tsx';

afterEach(() => vi.useRealTimers());

describe('SuccessPanel', () => {
  it('takes focus on OK, ignores Enter for a moment (and a held Enter always), then Enter is OK', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-04T12:00:00Z'));
    render(<SuccessPanel title="Trade Rolled Successfully" onDone={() => undefined} />);
    const ok = screen.getByRole('button', { name: 'OK' });
    expect(document.activeElement).toBe(ok);
    // fireEvent answers false when the default action (the button's click) was prevented.
    expect(fireEvent.keyDown(ok, { key: 'Enter' })).toBe(false);
    vi.setSystemTime(new Date(Date.now() + SUCCESS_SETTLE_MS - 1));
    expect(fireEvent.keyDown(ok, { key: 'Enter' })).toBe(false);
    vi.setSystemTime(new Date(Date.now() + 1));
    expect(fireEvent.keyDown(ok, { key: 'Enter', repeat: true })).toBe(false);
    expect(fireEvent.keyDown(ok, { key: 'Enter' })).toBe(true);
    expect(fireEvent.keyDown(ok, { key: 'Tab' })).toBe(true);
  });
});
