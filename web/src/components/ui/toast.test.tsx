// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MAX_TOASTS, ToastProvider, useToast, type ToastInput } from './toast.tsx';

let api: ReturnType<typeof useToast>;
function Capture() {
  api = useToast();
  return null;
}
function renderToasts() {
  return render(
    <ToastProvider>
      <Capture />
    </ToastProvider>,
  );
}

/** The toasts on screen, newest last. */
const shown = () => Array.from(document.querySelectorAll('.toast-region > .toast')).map((el) => el.querySelector('.toast-title')?.textContent);
const show = (t: ToastInput) => act(() => api.show(t));
const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));

describe('toasts on a clock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it(`shows at most ${MAX_TOASTS}: a new one pushes out the oldest`, () => {
    renderToasts();
    for (let i = 1; i <= 6; i++) show({ title: `Toast ${i}`, durationMs: 0 });
    expect(MAX_TOASTS).toBe(4);
    expect(shown()).toEqual(['Toast 3', 'Toast 4', 'Toast 5', 'Toast 6']);
  });

  it('goes after its duration (3.5 s by default, 6 s for an error); 0 keeps it until dismissed', () => {
    renderToasts();
    show({ title: 'Saved', tone: 'success' });
    show({ title: 'Failed to delete trade', tone: 'danger' });
    show({ title: 'Stays', durationMs: 0 });
    show({ title: 'Quick', durationMs: 1000 });
    advance(999);
    expect(shown()).toEqual(['Saved', 'Failed to delete trade', 'Stays', 'Quick']);
    advance(2);
    expect(shown()).toEqual(['Saved', 'Failed to delete trade', 'Stays']);
    advance(3500 - 1001);
    expect(shown()).toEqual(['Failed to delete trade', 'Stays']);
    advance(6000 - 3500);
    expect(shown()).toEqual(['Stays']);
    advance(10 * 60_000);
    expect(shown()).toEqual(['Stays']);
  });

  it('announces an error as an alert and the rest as status, in a Notifications landmark; each text once on the page', () => {
    renderToasts();
    show({ title: 'Error', message: 'Failed to delete trade', tone: 'danger' });
    show({ title: 'Saved', tone: 'success' });
    const region = screen.getByRole('region', { name: 'Notifications' });
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(screen.getByRole('alert').textContent).toContain('Failed to delete trade');
    expect(screen.getByRole('status').textContent).toContain('Saved');
    // Found once: nothing copies a toast's text elsewhere (a page-wide look-up must not find two).
    expect(screen.getAllByText('Failed to delete trade')).toHaveLength(1);
    expect(screen.getAllByText('Saved')).toHaveLength(1);
  });
});

// Real timers here: user-event waits on them between its steps.
describe('toasts to click and type at', () => {
  it('shows tone, title and message; Dismiss closes one', async () => {
    const user = userEvent.setup();
    renderToasts();
    show({ title: 'Deleted', message: 'Trade successfully deleted', tone: 'success', durationMs: 0 });
    show({ title: 'Error', message: 'Failed to delete trade', tone: 'danger', durationMs: 0 });
    const [first, second] = Array.from(document.querySelectorAll('.toast-region > .toast'));
    expect(first!.className).toContain('toast-success');
    expect(second!.className).toContain('toast-danger');
    expect(second!.querySelector('.toast-message')?.textContent).toBe('Failed to delete trade');
    const dismiss = screen.getAllByRole('button', { name: 'Dismiss' });
    expect(dismiss).toHaveLength(2);
    await user.click(dismiss[0]!);
    expect(shown()).toEqual(['Error']);
  });
});
