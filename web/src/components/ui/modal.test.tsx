// @vitest-environment jsdom
import '@/test/dom.ts';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Modal, type ModalProps } from './modal.tsx';
import { ToastProvider, useToast } from './toast.tsx';

/** A page with an opener button and the dialog it opens (the dialog owns its open state like callers do). */
function Page(props: Partial<ModalProps> & { withAutofocus?: boolean }) {
  const [open, setOpen] = useState(false);
  const { withAutofocus, ...modal } = props;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      <button type="button">Elsewhere</button>
      <Modal title="Close Trade" open={open} onClose={() => setOpen(false)} footer={<button type="button">Next</button>} {...modal}>
        <label>
          Contracts <input />
        </label>
        <label>
          Close Action <select data-autofocus={withAutofocus || undefined} />
        </label>
      </Modal>
    </>
  );
}

const dialog = () => screen.queryByRole('dialog');
/** Radix adds its outside-pointer listener a tick after the dialog mounts, as a click would come later. */
const tick = () => act(() => new Promise((r) => setTimeout(r, 0)));

describe('Modal', () => {
  it('moves focus in (to [data-autofocus] when there is one), names and describes the dialog', async () => {
    const user = userEvent.setup();
    render(<Page withAutofocus description="One of three contracts." />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const d = screen.getByRole('dialog', { name: 'Close Trade' });
    expect(document.activeElement).toBe(screen.getByLabelText('Close Action'));
    expect(d.getAttribute('aria-describedby')).toBe(screen.getByText('One of three contracts.').id);
  });

  it('without a description points aria-describedby nowhere; focus goes to the first control', async () => {
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(dialog()!.hasAttribute('aria-describedby')).toBe(false);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
  });

  it("renders its content in the caller's commit: a caller's layout effect can measure it (the share card fits a phone so)", () => {
    let measured: HTMLElement | null = null;
    function Measuring() {
      const card = useRef<HTMLDivElement>(null);
      useLayoutEffect(() => {
        measured = card.current;
      }, []);
      return (
        <Modal title="Share Trade" open onClose={() => undefined}>
          <div ref={card}>card</div>
        </Modal>
      );
    }
    render(<Measuring />);
    expect(measured).not.toBeNull();
  });

  it('traps Tab and Shift+Tab inside the dialog', async () => {
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const d = dialog()!;
    const seen = new Set<Element | null>();
    for (let i = 0; i < 8; i++) {
      await user.tab();
      expect(d.contains(document.activeElement), `Tab ${i + 1} left the dialog for ${document.activeElement?.outerHTML}`).toBe(true);
      seen.add(document.activeElement);
    }
    // Close, Contracts, Close Action, Next: every control was reached, and the cycle wrapped.
    expect(seen.size).toBe(4);
    for (let i = 0; i < 5; i++) {
      await user.tab({ shift: true });
      expect(d.contains(document.activeElement)).toBe(true);
    }
  });

  it('closes on Escape and gives focus back to the button that opened it, as it closes (not a task later)', async () => {
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    // Microtasks run, timers do not: the check below comes before any timer Radix sets on closing.
    await act(async () => void fireEvent.keyDown(document.activeElement!, { key: 'Escape' }));
    expect(dialog()).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it("gives focus back to the opener when the dialog's content moved focus in first (its own effect runs before the dialog's)", async () => {
    // The add-trade wizard focuses its first field in an effect; once its code is loaded, that effect
    // runs in the same commit as the dialog's, before it (QA: the second Add Trade left focus on <body>).
    function FocusingField() {
      const ref = useRef<HTMLInputElement>(null);
      useEffect(() => ref.current?.focus(), []);
      return <input ref={ref} aria-label="Account" />;
    }
    function Opener() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            New Record
          </button>
          <Modal title="Add Trade" open={open} onClose={() => setOpen(false)}>
            <FocusingField />
          </Modal>
        </>
      );
    }
    const user = userEvent.setup();
    render(<Opener />);
    const opener = screen.getByRole('button', { name: 'New Record' });
    for (let round = 0; round < 2; round++) {
      await user.click(opener);
      expect(document.activeElement).toBe(screen.getByLabelText('Account'));
      await user.keyboard('{Escape}');
      expect(dialog()).toBeNull();
      expect(document.activeElement).toBe(opener);
    }
  });

  it('closes on a backdrop click only when allowed', async () => {
    const user = userEvent.setup();
    const { unmount } = render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await tick();
    await user.click(document.querySelector('.modal-backdrop')!);
    expect(dialog()).toBeNull();
    unmount();

    render(<Page closeOnBackdrop={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await tick();
    await user.click(document.querySelector('.modal-backdrop')!);
    expect(dialog()).not.toBeNull();
    // A click inside the dialog is not a backdrop click either way.
    await user.click(screen.getByLabelText('Contracts'));
    expect(dialog()).not.toBeNull();
  });

  it('while not dismissible: Escape, the backdrop and the close button do nothing', async () => {
    const user = userEvent.setup();
    render(<Page dismissible={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await tick();
    await user.keyboard('{Escape}');
    expect(dialog()).not.toBeNull();
    await user.click(document.querySelector('.modal-backdrop')!);
    expect(dialog()).not.toBeNull();
    const close = screen.getByRole('button', { name: 'Close' });
    expect((close as HTMLButtonElement).disabled).toBe(true);
    await user.click(close);
    expect(dialog()).not.toBeNull();
  });

  it('stacks a confirm over a form: Escape closes the top one, focus returns into the form, then the form', async () => {
    function FormWithConfirm() {
      const [form, setForm] = useState(true);
      const [confirm, setConfirm] = useState(false);
      return (
        <Modal title="Edit Trade" open={form} onClose={() => setForm(false)}>
          <button type="button" onClick={() => setConfirm(true)}>
            Delete
          </button>
          <Modal title="Confirm Delete" size="sm" open={confirm} onClose={() => setConfirm(false)}>
            <button type="button" data-autofocus>
              Yes
            </button>
          </Modal>
        </Modal>
      );
    }
    const user = userEvent.setup();
    render(<FormWithConfirm />);
    const del = screen.getByRole('button', { name: 'Delete' });
    await user.click(del);
    const confirm = screen.getByRole('dialog', { name: 'Confirm Delete' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Yes' }));
    // Tab stays in the confirm, not in the form under it.
    for (let i = 0; i < 3; i++) {
      await user.tab();
      expect(confirm.contains(document.activeElement)).toBe(true);
    }
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Confirm Delete' })).toBeNull();
    expect(screen.getByRole('dialog', { name: 'Edit Trade' })).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(del));
    await user.keyboard('{Escape}');
    expect(dialog()).toBeNull();
  });

  it('still closes on Escape when a toast arrived after it opened; the toast stays readable', async () => {
    function WithToast() {
      const toast = useToast();
      const [open, setOpen] = useState(true);
      return (
        <Modal title="Add Account" open={open} onClose={() => setOpen(false)}>
          <button type="button" onClick={() => toast.success('Trade Account Added.')}>
            Add Account
          </button>
        </Modal>
      );
    }
    const user = userEvent.setup();
    render(
      <ToastProvider>
        <WithToast />
      </ToastProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Add Account' }));
    const toast = screen.getByRole('region', { name: /Notifications/ });
    // Not hidden from assistive technology by the open dialog, and its Dismiss button is reachable.
    expect(toast.closest('[aria-hidden="true"]')).toBeNull();
    expect(screen.getByRole('button', { name: 'Dismiss' })).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(dialog()).toBeNull();
    expect(screen.getByRole('button', { name: 'Dismiss' })).toBeTruthy();
  });

  it("leaves what a third party lays over the page usable: Stripe's 3-D Secure challenge, appended to <body> from the payment dialog", async () => {
    const user = userEvent.setup();
    render(<Page closeOnBackdrop={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(dialog()).not.toBeNull();
    // As Stripe.js does: a fixed layer of its own at the end of <body>, outside the dialog, taking focus.
    const layer = document.createElement('div');
    layer.style.position = 'fixed';
    layer.style.zIndex = '2147483647';
    let approved = 0;
    const code = document.createElement('input');
    code.setAttribute('aria-label', 'Verification code');
    const approve = document.createElement('button');
    approve.textContent = 'Complete authentication';
    approve.addEventListener('click', () => approved++);
    layer.append(code, approve);
    document.body.append(layer);
    try {
      // Clicked and typed into (user-event refuses a click on anything under pointer-events: none), and
      // focus stays where the trader put it instead of being pulled back into the dialog.
      await user.click(screen.getByLabelText('Verification code'));
      await user.keyboard('123456');
      expect(document.activeElement).toBe(code);
      expect(code.value).toBe('123456');
      await user.click(screen.getByText('Complete authentication'));
      expect(approved).toBe(1);
      // And the dialog under it is still open, waiting for the outcome.
      expect(dialog()).not.toBeNull();
    } finally {
      layer.remove();
    }
  });
});
