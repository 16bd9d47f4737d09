import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import './modal.css';

export interface ModalProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg' | 'xl';
  /** false for a static backdrop (clicks outside do not close). */
  closeOnBackdrop?: boolean;
  /** false while busy: Escape and the close button do nothing. */
  dismissible?: boolean;
  /** Element to focus first; defaults to the first focusable element in the dialog. */
  initialFocusRef?: React.RefObject<HTMLElement | null>;
  description?: ReactNode;
  className?: string;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

const openStack: HTMLElement[] = [];

/**
 * A control the Tab key can reach: rendered (not display: none, here or above). `checkVisibility`, not
 * `offsetParent`, which is null for a shown control with position: fixed too; a DOM without layout
 * (jsdom) has no `checkVisibility`, and there every control counts.
 */
const shown = (el: HTMLElement): boolean => el === document.activeElement || (typeof el.checkVisibility === 'function' ? el.checkVisibility() : true);

/**
 * An accessible modal dialog: focus moves in and is trapped while open, Escape closes, focus returns
 * to the element that opened it, the page behind does not scroll. Stacked dialogs (a confirm over a
 * form) each own Escape and Tab only while they are on top.
 *
 * Not Radix Dialog, unlike the menus and toasts: a modal Radix Dialog sets `pointer-events: none` on
 * <body> and pulls focus back whenever it lands outside the dialog, and there is no switching either off
 * while keeping it modal (radix-ui/primitives#2122, open). Stripe.js shows its 3-D Secure challenge in
 * an iframe it appends to <body>, outside our payment dialog: under Radix the trader could neither
 * click nor type in it, and a card that asks for 3-D Secure could not subscribe. Here the trap holds
 * the Tab key only, so anything a third party lays over the page stays usable (tested).
 */
export function Modal({ open, onClose, title, children, footer, size = 'md', closeOnBackdrop = true, dismissible = true, initialFocusRef, description, className }: ModalProps) {
  const panelRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const descId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  const dismissibleRef = useRef(dismissible);
  dismissibleRef.current = dismissible;
  // The control that opened the dialog, read as the dialog first renders open: by the time this
  // component's effect runs, a child's own effect may already have moved focus into the dialog (children's
  // effects run first), and focus would be "returned" on close to a field that is gone (QA: the second
  // Add Trade, whose form code was already loaded, left focus on <body>).
  const openerRef = useRef<HTMLElement | null>(null);
  const renderedOpen = useRef(false);
  if (open !== renderedOpen.current) {
    renderedOpen.current = open;
    if (open) openerRef.current = document.activeElement as HTMLElement | null;
  }

  useEffect(() => {
    if (!open) return;
    const panel = panelRef.current;
    if (!panel) return;
    const previouslyFocused = openerRef.current;
    openStack.push(panel);
    document.body.classList.add('modal-open');
    // Content that already took focus (its effect ran first) keeps it.
    if (!panel.contains(document.activeElement)) {
      const first = initialFocusRef?.current ?? panel.querySelector<HTMLElement>('[data-autofocus]') ?? panel.querySelector<HTMLElement>(FOCUSABLE);
      (first ?? panel).focus();
    }

    const onKey = (e: KeyboardEvent) => {
      if (openStack[openStack.length - 1] !== panel) return;
      if (e.key === 'Escape') {
        e.stopPropagation();
        if (dismissibleRef.current) onCloseRef.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = Array.from(panel.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(shown);
      if (items.length === 0) {
        e.preventDefault();
        panel.focus();
        return;
      }
      const firstEl = items[0]!;
      const lastEl = items[items.length - 1]!;
      if (e.shiftKey && (document.activeElement === firstEl || !panel.contains(document.activeElement))) {
        e.preventDefault();
        lastEl.focus();
      } else if (!e.shiftKey && (document.activeElement === lastEl || !panel.contains(document.activeElement))) {
        e.preventDefault();
        firstEl.focus();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      const i = openStack.indexOf(panel);
      if (i >= 0) openStack.splice(i, 1);
      if (openStack.length === 0) document.body.classList.remove('modal-open');
      if (previouslyFocused && document.contains(previouslyFocused)) previouslyFocused.focus();
    };
    // Open/close only; the latest onClose is read through the ref.
  }, [open]);

  if (!open) return null;
  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget && closeOnBackdrop && dismissible) onClose();
      }}
    >
      <div
        ref={panelRef}
        className={`modal modal-${size}${className ? ` ${className}` : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descId : undefined}
        tabIndex={-1}
      >
        <header className="modal-header">
          <h2 id={titleId} className="modal-title">
            {title}
          </h2>
          <button type="button" className="icon-button modal-close" aria-label="Close" onClick={onClose} disabled={!dismissible}>
            <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
              <path d="M18 6 6 18M6 6l12 12" />
            </svg>
          </button>
        </header>
        <div className="modal-body">
          {description && (
            <p id={descId} className="modal-description">
              {description}
            </p>
          )}
          {children}
        </div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>,
    document.body,
  );
}
