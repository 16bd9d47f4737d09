// @vitest-environment jsdom
import '@/test/dom.ts';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SETTINGS_PANEL_ID, SettingsPanel } from './settings-panel.tsx';

/** The gear and the panel as the shell has them, with something else on the page to press. */
function Shell({ shown = true }: { shown?: boolean }) {
  const [visible, setVisible] = useState(shown);
  return (
    <>
      <button type="button" aria-label="Display settings" aria-expanded={visible} aria-controls={SETTINGS_PANEL_ID} onClick={() => setVisible((v) => !v)} data-settings-toggle>
        gear
      </button>
      <input aria-label="Search ticker" />
      {visible && <SettingsPanel onClose={() => setVisible(false)} contracted={false} onContractedChange={() => {}} />}
    </>
  );
}
const panel = () => screen.queryByRole('region', { name: 'Display settings' });

describe('SettingsPanel', () => {
  it('closes on a press outside it, not on a press inside it or on the gear (which toggles it)', async () => {
    const user = userEvent.setup();
    render(<Shell />);
    await user.click(screen.getByRole('button', { name: 'Dark' }));
    expect(panel()).not.toBeNull();
    await user.click(screen.getByLabelText('Search ticker'));
    expect(panel()).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Display settings' }));
    expect(panel()).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Display settings' }));
    expect(panel()).toBeNull();
  });

  it('closes on Escape and gives focus back to the gear', async () => {
    const user = userEvent.setup();
    render(<Shell />);
    await user.click(screen.getByRole('button', { name: '25' }));
    await user.keyboard('{Escape}');
    expect(panel()).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Display settings' }));
  });

  it('takes focus when the gear opens it, so the next Tab is inside it; shown again after a reload it leaves focus be', async () => {
    const user = userEvent.setup();
    const { unmount } = render(<Shell />);
    expect(document.activeElement).toBe(document.body);
    unmount();
    render(<Shell shown={false} />);
    await user.click(screen.getByRole('button', { name: 'Display settings' }));
    expect(document.activeElement).toBe(panel());
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close settings' }));
  });
});
