// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it, vi } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Button } from './button.tsx';

describe('Button', () => {
  it('keeps keyboard focus when it becomes busy (QA: Enter on Download dropped focus to <body>)', () => {
    const { rerender } = render(<Button onClick={() => {}}>Download</Button>);
    const button = screen.getByRole<HTMLButtonElement>('button', { name: 'Download' });
    button.focus();
    rerender(
      <Button onClick={() => {}} loading>
        Download
      </Button>,
    );
    expect(button.disabled).toBe(false);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(button.getAttribute('aria-busy')).toBe('true');
    expect(document.activeElement).toBe(button);
  });

  it('ignores activation while busy: no handler call, no second submit of its form', async () => {
    const user = userEvent.setup();
    const onClick = vi.fn();
    const onSubmit = vi.fn((e: React.FormEvent) => e.preventDefault());
    render(
      <form onSubmit={onSubmit}>
        <input aria-label="Name" />
        <Button type="submit" loading onClick={onClick}>
          Saving...
        </Button>
      </form>,
    );
    const button = screen.getByRole('button', { name: 'Saving...' });
    await user.click(button);
    button.focus();
    await user.keyboard('{Enter}');
    await user.keyboard(' ');
    // Enter in a field submits by clicking the form's default button.
    await user.click(screen.getByLabelText('Name'));
    await user.keyboard('{Enter}');
    expect(onClick).not.toHaveBeenCalled();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('submits and calls its handler when not busy', async () => {
    const user = userEvent.setup();
    const onClick = vi.fn();
    const onSubmit = vi.fn((e: React.FormEvent) => e.preventDefault());
    render(
      <form onSubmit={onSubmit}>
        <Button type="submit" onClick={onClick}>
          Save
        </Button>
      </form>,
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onClick).toHaveBeenCalledTimes(1);
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it("passes the caller's own aria-disabled through when not busy (a wizard's Next says aria-disabled=\"false\")", () => {
    expect(renderToStaticMarkup(<Button aria-disabled={false}>Next</Button>)).toContain('aria-disabled="false"');
    expect(renderToStaticMarkup(<Button aria-disabled>Next</Button>)).toContain('aria-disabled="true"');
    expect(renderToStaticMarkup(<Button>Next</Button>)).not.toContain('aria-');
    expect(
      renderToStaticMarkup(
        <Button aria-disabled={false} loading>
          Next
        </Button>,
      ),
    ).toContain('aria-disabled="true"');
  });

  it('keeps an explicit disabled native', () => {
    const html = renderToStaticMarkup(<Button disabled>Save</Button>);
    expect(html).toMatch(/<button[^>]* disabled=""/);
    expect(html).not.toContain('aria-disabled');
    const busyAndDisabled = renderToStaticMarkup(
      <Button disabled loading>
        Save
      </Button>,
    );
    expect(busyAndDisabled).toMatch(/ disabled=""/);
    expect(busyAndDisabled).toContain('aria-busy="true"');
  });
});
