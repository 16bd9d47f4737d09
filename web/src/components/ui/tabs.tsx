import { useId, useRef, type KeyboardEvent } from 'react';

export interface TabItem<T extends string> {
  id: T;
  label: string;
}

/**
 * Tabs as WAI-ARIA's tabs pattern has them: one tab in the Tab order (the selected one), the arrow keys
 * move between tabs and select them, Home and End go to the first and last, and each tab names the panel
 * it controls. `panelProps(id)` gives that panel its role, id and name.
 */
export function useTabs<T extends string>(tabs: readonly TabItem<T>[], selected: T, onSelect: (id: T) => void) {
  const base = useId();
  const refs = useRef(new Map<T, HTMLButtonElement>());
  const tabId = (id: T) => `${base}-tab-${id}`;
  const panelId = (id: T) => `${base}-panel-${id}`;
  const move = (e: KeyboardEvent<HTMLButtonElement>, from: number) => {
    const to = { ArrowRight: from + 1, ArrowLeft: from - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!;
    onSelect(next.id);
    refs.current.get(next.id)?.focus();
  };
  const tabList = ({ label, className, tabClassName }: { label: string; className: string; tabClassName: string }) => (
    <div className={className} role="tablist" aria-label={label}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            if (el) refs.current.set(t.id, el);
            else refs.current.delete(t.id);
          }}
          id={tabId(t.id)}
          type="button"
          role="tab"
          aria-selected={selected === t.id}
          aria-controls={panelId(t.id)}
          tabIndex={selected === t.id ? 0 : -1}
          className={`${tabClassName}${selected === t.id ? ' active' : ''}`}
          onClick={() => onSelect(t.id)}
          onKeyDown={(e) => move(e, i)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
  const panelProps = (id: T) => ({ role: 'tabpanel' as const, id: panelId(id), 'aria-labelledby': tabId(id), hidden: selected !== id });
  return { tabList, panelProps };
}
