// @vitest-environment jsdom
import '@/test/dom.ts';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useTabs, type TabItem } from './tabs.tsx';

type Id = 'timeline' | 'as-of' | 'verify';
const items: readonly TabItem<Id>[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'as-of', label: 'As of' },
  { id: 'verify', label: 'Verify' },
];

function Views() {
  const [tab, setTab] = useState<Id>('timeline');
  const { tabList, panelProps } = useTabs(items, tab, setTab);
  return (
    <>
      <button type="button">Before</button>
      {tabList({ label: 'Audit views', className: 'tabs', tabClassName: 'tab' })}
      {items.map((t) => (
        <div key={t.id} {...panelProps(t.id)}>
          {t.label} panel
        </div>
      ))}
      <button type="button">After</button>
    </>
  );
}

const tab = (name: string) => screen.getByRole('tab', { name });
const selected = () => screen.getAllByRole('tab').filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.textContent);

describe('useTabs (WAI-ARIA tabs pattern)', () => {
  it('one tab stop; arrows, Home and End select and focus, wrapping at the ends; each tab controls its panel', async () => {
    const user = userEvent.setup();
    render(<Views />);
    // Tab enters the list on the selected tab and leaves it in one more press.
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(tab('Timeline'));
    await user.tab();
    expect(document.activeElement?.textContent).toBe('After');
    await user.click(tab('Timeline'));

    await user.keyboard('{ArrowRight}');
    expect([document.activeElement, selected()]).toEqual([tab('As of'), ['As of']]);
    await user.keyboard('{End}');
    expect([document.activeElement, selected()]).toEqual([tab('Verify'), ['Verify']]);
    await user.keyboard('{ArrowRight}');
    expect([document.activeElement, selected()]).toEqual([tab('Timeline'), ['Timeline']]);
    await user.keyboard('{ArrowLeft}');
    expect(selected()).toEqual(['Verify']);
    await user.keyboard('{Home}');
    expect(selected()).toEqual(['Timeline']);

    // Only the selected panel shows, named by its tab.
    const panel = screen.getByRole('tabpanel');
    expect(panel.textContent).toBe('Timeline panel');
    expect(tab('Timeline').getAttribute('aria-controls')).toBe(panel.id);
    expect(panel.getAttribute('aria-labelledby')).toBe(tab('Timeline').id);
    expect(tab('As of').getAttribute('tabindex')).toBe('-1');
  });
});
