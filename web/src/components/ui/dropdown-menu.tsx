import { useRef, useState, type ReactNode } from 'react';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { Link } from 'react-router';
import './dropdown-menu.css';

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

/** Distance kept between the menu and the window's edges when it is moved or flipped to fit. */
const EDGE = 8;

/**
 * A menu button on Radix DropdownMenu: Enter/Space/ArrowDown open, arrows, Home/End and typeahead move,
 * Escape closes and returns focus to the button, Tab and Shift+Tab close it and move on from the button
 * (the WAI-ARIA menu button pattern). The menu is drawn in a portal and kept inside the
 * window (flipped above the button when there is no room below): a scrolling container such as the
 * trade table would otherwise clip it.
 *
 * Non-modal, as before: a click outside closes the menu and still reaches what was clicked.
 */
export function DropdownMenu({ trigger, label, items, align = 'end', header, triggerClassName, disabled }: DropdownMenuProps) {
  const triggerRef = useRef<HTMLButtonElement>(null);
  // An action runs once the menu has closed and focus is back on the button: a dialog it opens then
  // takes focus from the button and returns it there (the menu item it was chosen from is gone).
  const pending = useRef<(() => void) | null>(null);
  const [open, setOpen] = useState(false);
  // Closed by Tab: focus is where the Tab took it, and Radix must not pull it back to the button.
  const tabbedOut = useRef(false);

  return (
    <div className="dropdown">
      <Menu.Root modal={false} open={open} onOpenChange={setOpen}>
        <Menu.Trigger ref={triggerRef} className={triggerClassName ?? 'btn btn-secondary btn-md'} aria-label={label} disabled={disabled}>
          {trigger}
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content
            className="dropdown-menu"
            aria-label={label}
            align={align}
            loop
            sideOffset={6}
            collisionPadding={EDGE}
            onKeyDownCapture={(e) => {
              if (e.key !== 'Tab') return;
              // Radix cancels Tab inside a menu. The menu sits in a portal at the end of <body>, so the
              // browser's own Tab must start from the button to land next to it: focus the button, and
              // keep the key from Radix's handler (capture phase) without cancelling it.
              e.stopPropagation();
              tabbedOut.current = true;
              triggerRef.current?.focus();
              setOpen(false);
            }}
            onCloseAutoFocus={(e) => {
              if (tabbedOut.current) {
                tabbedOut.current = false;
                e.preventDefault();
                return;
              }
              const action = pending.current;
              pending.current = null;
              if (!action) return;
              e.preventDefault();
              triggerRef.current?.focus();
              action();
            }}
          >
            {header && <div className="dropdown-header">{header}</div>}
            {items.map((item, i) => {
              if (item === 'separator') return <Menu.Separator key={`sep-${i}`} className="dropdown-separator" />;
              const cls = `dropdown-item${item.tone === 'danger' ? ' dropdown-item-danger' : ''}`;
              const content = (
                <>
                  {item.icon && (
                    <span className="dropdown-icon" aria-hidden="true">
                      {item.icon}
                    </span>
                  )}
                  <span>{item.label}</span>
                </>
              );
              if (item.to && !item.disabled) {
                return (
                  <Menu.Item key={i} asChild className={cls} title={item.title}>
                    <Link to={item.to}>{content}</Link>
                  </Menu.Item>
                );
              }
              return (
                <Menu.Item
                  key={i}
                  className={cls}
                  disabled={item.disabled}
                  title={item.title}
                  onSelect={() => {
                    if (item.onSelect) pending.current = item.onSelect;
                  }}
                >
                  {content}
                </Menu.Item>
              );
            })}
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
    </div>
  );
}
