import { useEffect, useId, useRef, useState } from 'react';
import { ITEMS_PER_PAGE_OPTIONS, setItemsPerPage, useItemsPerPage } from '@/lib/settings.ts';
import { applyTheme, savedTheme, type Theme } from '@/lib/theme.ts';
import { useDismiss } from '@/lib/use-dismiss.ts';
import './settings-panel.css';

/** The top bar's gear (`data-settings-toggle`), which toggles the panel: a press on it is not a press outside. */
const SETTINGS_TOGGLE_ATTR = 'data-settings-toggle';
/** The panel's id, for the gear's `aria-controls`. */
export const SETTINGS_PANEL_ID = 'display-settings';

/**
 * Display settings: theme, list page size and sidebar width. Shown from the top bar's gear; Escape or a
 * press outside it closes it, as the menus close (QA: on a phone it covered the search box and the period
 * switches, and only its small × took it away; its shown flag is kept across pages, part 1 §2).
 */
export function SettingsPanel({ onClose, contracted, onContractedChange }: { onClose: () => void; contracted: boolean; onContractedChange: (v: boolean) => void }) {
  const titleId = useId();
  const itemsPerPage = useItemsPerPage();
  const [theme, setTheme] = useState<Theme>(savedTheme);
  const panelRef = useRef<HTMLElement>(null);
  useDismiss(
    true,
    // A dialog over the page owns its presses (the panel stays for when it closes); the gear toggles it.
    (target) => document.body.classList.contains('modal-open') || (panelRef.current?.contains(target) ?? false) || (target instanceof Element && target.closest(`[${SETTINGS_TOGGLE_ATTR}]`) !== null),
    (by) => {
      const inside = panelRef.current?.contains(document.activeElement) ?? false;
      onClose();
      // Focus leaves with the panel: back to the gear that opened it.
      if (by === 'escape' && inside) document.querySelector<HTMLElement>(`[${SETTINGS_TOGGLE_ATTR}]`)?.focus();
    },
  );
  // Opened from the gear, focus moves into the panel, which comes later in the page (QA: by keyboard it took
  // three Tabs past the bell and the user menu to reach it). Shown again after a reload, it leaves focus be.
  useEffect(() => {
    if (document.activeElement?.closest(`[${SETTINGS_TOGGLE_ATTR}]`)) panelRef.current?.focus();
  }, []);
  return (
    <section ref={panelRef} id={SETTINGS_PANEL_ID} tabIndex={-1} className="settings-panel" aria-labelledby={titleId}>
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
