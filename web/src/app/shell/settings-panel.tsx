import { useId, useState } from 'react';
import { ITEMS_PER_PAGE_OPTIONS, setItemsPerPage, useItemsPerPage } from '@/lib/settings.ts';
import { applyTheme, savedTheme, type Theme } from '@/lib/theme.ts';

/** Display settings: theme, list page size and sidebar width. Shown from the top bar's gear. */
export function SettingsPanel({ onClose, contracted, onContractedChange }: { onClose: () => void; contracted: boolean; onContractedChange: (v: boolean) => void }) {
  const titleId = useId();
  const itemsPerPage = useItemsPerPage();
  const [theme, setTheme] = useState<Theme>(savedTheme);
  return (
    <section className="settings-panel" aria-labelledby={titleId}>
      <header className="settings-panel-header">
        <h2 id={titleId}>Display settings</h2>
        <button type="button" className="icon-button" aria-label="Close settings" onClick={onClose}>
          ×
        </button>
      </header>
      <fieldset className="settings-group">
        <legend>Theme</legend>
        <div className="segmented">
          {(['light', 'dark'] as const).map((t) => (
            <button
              key={t}
              type="button"
              aria-pressed={theme === t}
              onClick={() => {
                setTheme(t);
                applyTheme(t, true);
              }}
            >
              {t === 'light' ? 'Light' : 'Dark'}
            </button>
          ))}
        </div>
      </fieldset>
      <fieldset className="settings-group">
        <legend>Trades per page</legend>
        <div className="segmented">
          {ITEMS_PER_PAGE_OPTIONS.map((n) => (
            <button key={n} type="button" aria-pressed={itemsPerPage === n} onClick={() => setItemsPerPage(n)}>
              {n}
            </button>
          ))}
        </div>
      </fieldset>
      <fieldset className="settings-group settings-sidebar">
        <legend>Sidebar</legend>
        <div className="segmented">
          <button type="button" aria-pressed={!contracted} onClick={() => onContractedChange(false)}>
            Expanded
          </button>
          <button type="button" aria-pressed={contracted} onClick={() => onContractedChange(true)}>
            Collapsed
          </button>
        </div>
      </fieldset>
    </section>
  );
}
