import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';

export interface MenuItem {
  label: ReactNode;
  onSelect?: () => void;
  /** A link instead of an action. */
  to?: string;
  disabled?: boolean;
  icon?: ReactNode;
  tone?: 'default' | 'danger';
  /** Shown as a tooltip/title, e.g. why an item is disabled. */
  title?: string;
}

export interface DropdownMenuProps {
  /** Content of the trigger button. */
  trigger: ReactNode;
  /** Accessible name of the trigger when its content is an icon. */
  label: string;
  items: (MenuItem | 'separator')[];
  align?: 'start' | 'end';
  header?: ReactNode;
  triggerClassName?: string;
  disabled?: boolean;
}

/** A menu button: Enter/Space/ArrowDown open, arrows move, Escape closes and returns focus. */
export function DropdownMenu({ trigger, label, items, align = 'end', header, triggerClassName, disabled }: DropdownMenuProps) {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    menuRef.current?.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus();
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  };

  const onMenuKey = (e: React.KeyboardEvent) => {
    const all = Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? []);
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      all[(i + 1) % all.length]?.focus();
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      all[(i - 1 + all.length) % all.length]?.focus();
    } else if (e.key === 'Home') {
      e.preventDefault();
      all[0]?.focus();
    } else if (e.key === 'End') {
      e.preventDefault();
      all[all.length - 1]?.focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      close(true);
    } else if (e.key === 'Tab') {
      close(false);
    }
  };

  return (
    <div className="dropdown" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className={triggerClassName ?? 'btn btn-secondary btn-md'}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        {trigger}
      </button>
      {open && (
        <div id={menuId} ref={menuRef} className={`dropdown-menu dropdown-${align}`} role="menu" aria-label={label} onKeyDown={onMenuKey}>
          {header && <div className="dropdown-header">{header}</div>}
          {items.map((item, i) => {
            if (item === 'separator') return <div key={`sep-${i}`} className="dropdown-separator" role="separator" />;
            const cls = `dropdown-item${item.tone === 'danger' ? ' dropdown-item-danger' : ''}`;
            const content = (
              <>
                {item.icon && <span className="dropdown-icon" aria-hidden="true">{item.icon}</span>}
                <span>{item.label}</span>
              </>
            );
            if (item.to && !item.disabled) {
              return (
                <Link key={i} to={item.to} role="menuitem" tabIndex={-1} className={cls} title={item.title} onClick={() => close(false)}>
                  {content}
                </Link>
              );
            }
            return (
              <button
                key={i}
                type="button"
                role="menuitem"
                tabIndex={-1}
                className={cls}
                aria-disabled={item.disabled || undefined}
                title={item.title}
                onClick={() => {
                  if (item.disabled) return;
                  close(true);
                  item.onSelect?.();
                }}
              >
                {content}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
