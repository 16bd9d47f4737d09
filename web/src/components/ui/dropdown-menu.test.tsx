// @vitest-environment jsdom
import '@/test/dom.ts';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { DropdownMenu, type MenuItem } from './dropdown-menu.tsx';
import { Modal } from './modal.tsx';

function renderMenu(items: (MenuItem | 'separator')[], extra: { header?: string; align?: 'start' | 'end' } = {}) {
  return render(
    <MemoryRouter initialEntries={['/trades/open']}>
      <div className="table-scroll">
        <DropdownMenu trigger="⋯" label="Actions for AAPL" items={items} header={extra.header} align={extra.align} />
      </div>
      <Routes>
        <Route path="/trades/open" element={<p>Open Trades</p>} />
        <Route path="/profile" element={<p>Profile page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

const trigger = () => screen.getByRole('button', { name: 'Actions for AAPL' });
const focused = () => document.activeElement?.textContent;

describe('DropdownMenu', () => {
  it('opens from the keyboard on the first item; arrows, Home and End move and skip disabled items; Escape returns focus', async () => {
    const user = userEvent.setup();
    renderMenu([{ label: 'View Detail' }, { label: 'Edit', disabled: true, title: 'Closed trades are final' }, { label: 'Delete', tone: 'danger' }, { label: 'Roll History' }]);
    trigger().focus();
    await user.keyboard('{Enter}');
    expect(trigger().getAttribute('aria-expanded')).toBe('true');
    expect(focused()).toBe('View Detail');
    await user.keyboard('{ArrowDown}');
    expect(focused()).toBe('Delete');
    await user.keyboard('{End}');
    expect(focused()).toBe('Roll History');
    await user.keyboard('{Home}');
    expect(focused()).toBe('View Detail');
    await user.keyboard('{ArrowUp}');
    // The arrows wrap around.
    expect(focused()).toBe('Roll History');
    await user.keyboard('{ArrowDown}');
    expect(focused()).toBe('View Detail');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(trigger()));
  });

  it('finds an item by typing its first letters', async () => {
    const user = userEvent.setup();
    renderMenu([{ label: 'View Detail' }, { label: 'Edit' }, { label: 'Roll History' }, { label: 'Split History' }]);
    trigger().focus();
    await user.keyboard('{ArrowDown}');
    await user.keyboard('s');
    expect(focused()).toBe('Split History');
    await user.keyboard('{Escape}');
  });

  it('runs an action once the menu has closed, with focus back on the button (a dialog it opens returns focus there)', async () => {
    const user = userEvent.setup();
    let focusAtSelect: Element | null = null;
    const onSelect = vi.fn(() => (focusAtSelect = document.activeElement));
    renderMenu([{ label: 'View Detail', onSelect }]);
    await user.click(trigger());
    await user.click(screen.getByRole('menuitem', { name: 'View Detail' }));
    await waitFor(() => expect(onSelect).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole('menu')).toBeNull();
    expect(focusAtSelect).toBe(trigger());
  });

  it('opens a dialog from an item and, when it closes, gives focus back to the menu button', async () => {
    function RowMenu() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <DropdownMenu trigger="⋯" label="Actions for AAPL" items={[{ label: 'Share', onSelect: () => setOpen(true) }]} />
          <Modal title="Share Trade" open={open} onClose={() => setOpen(false)}>
            <button type="button">Download</button>
          </Modal>
        </>
      );
    }
    const user = userEvent.setup();
    render(<RowMenu />);
    trigger().focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Share Trade' });
    await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(trigger()));
  });

  it('a disabled item keeps its title, says aria-disabled and does nothing', async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    renderMenu([{ label: 'Open Trade', onSelect, disabled: true, title: 'Add a trade account first.' }, { label: 'Profile', to: '/profile' }]);
    await user.click(trigger());
    const item = screen.getByRole('menuitem', { name: 'Open Trade' });
    expect(item.getAttribute('aria-disabled')).toBe('true');
    expect(item.getAttribute('title')).toBe('Add a trade account first.');
    await user.click(item);
    await new Promise((r) => setTimeout(r, 10));
    expect(onSelect).not.toHaveBeenCalled();
    expect(screen.getByRole('menu')).toBeTruthy();
  });

  it('a link item is a router link: it navigates and closes the menu', async () => {
    const user = userEvent.setup();
    renderMenu([{ label: 'Profile', to: '/profile' }, 'separator', { label: 'Logout', to: '/logout', tone: 'danger' }], { header: 'Sam Trader' });
    await user.click(trigger());
    const menu = screen.getByRole('menu', { name: 'Actions for AAPL' });
    expect(menu.textContent).toContain('Sam Trader');
    expect(screen.getAllByRole('separator')).toHaveLength(1);
    const profile = screen.getByRole('menuitem', { name: 'Profile' });
    expect(profile.tagName).toBe('A');
    expect(profile.getAttribute('href')).toBe('/profile');
    expect(screen.getByRole('menuitem', { name: 'Logout' }).className).toContain('dropdown-item-danger');
    await user.click(profile);
    await screen.findByText('Profile page');
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('Tab and Shift+Tab close the menu and move on from its button, as if the menu were not there', async () => {
    const onSelect = vi.fn();
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <button type="button">Before</button>
        <DropdownMenu trigger="⋯" label="Actions for AAPL" items={[{ label: 'View Detail', onSelect }, { label: 'Edit' }]} />
        <button type="button">After</button>
      </MemoryRouter>,
    );
    trigger().focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{ArrowDown}');
    expect(focused()).toBe('Edit');
    // The menu is in a portal at the end of <body>: the Tab goes on from its button, not from the portal.
    await user.keyboard('{Tab}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(trigger().getAttribute('aria-expanded')).toBe('false');
    expect(focused()).toBe('After');
    // Radix returns focus to the button once the menu has unmounted: the Tab's target keeps it.
    await new Promise((r) => setTimeout(r, 20));
    expect(focused()).toBe('After');

    trigger().focus();
    await user.keyboard('{Enter}');
    expect(focused()).toBe('View Detail');
    await user.keyboard('{Shift>}{Tab}{/Shift}');
    expect(screen.queryByRole('menu')).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(focused()).toBe('Before');
    expect(onSelect).not.toHaveBeenCalled();

    // Escape still closes the menu and gives focus back to its button.
    trigger().focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(trigger()));
  });

  it('draws the menu in a portal at the end of the page, outside any scrolling container', async () => {
    const user = userEvent.setup();
    renderMenu([{ label: 'View Detail' }], { align: 'start' });
    await user.click(trigger());
    const menu = screen.getByRole('menu');
    expect(menu.closest('.table-scroll')).toBeNull();
    expect(menu.closest('[data-radix-popper-content-wrapper]')?.parentElement).toBe(document.body);
    expect(menu.getAttribute('data-align')).toBe('start');
  });
});
