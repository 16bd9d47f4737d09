// @vitest-environment jsdom
import '@/test/dom.ts';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SettingsPanel } from './settings-panel.tsx';

/** The gear and the panel as the shell has them, with something else on the page to press. */
function Shell() {
  const [visible, setVisible] = useState(true);
  return (
    <>
      <button type="button" aria-label="Display settings" aria-pressed={visible} onClick={() => setVisible((v) => !v)} data-settings-toggle>
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
});
