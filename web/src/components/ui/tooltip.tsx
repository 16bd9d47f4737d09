import { useId, useLayoutEffect, useRef, useState, type CSSProperties, type ReactElement, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export interface TooltipProps {
  content: ReactNode;
  children: ReactElement;
  placement?: 'top' | 'bottom';
}

const GAP = 6;
/** Distance kept from the window's edges. */
const MARGIN = 8;

/**
 * Shows on hover and on keyboard focus; the trigger is described by the tooltip text. The tooltip is
 * drawn in the page's top layer (a portal with fixed coordinates), not inside the trigger: a
 * scrolling container (the trade table clips its overflow) would cut it off, and a sticky header would
 * be covered by it. It keeps inside the window and takes the other side when its own has no room.
 */
export function Tooltip({ content, children, placement = 'top' }: TooltipProps) {
  const [open, setOpen] = useState(false);
  const [position, setPosition] = useState<{ left: number; top: number; side: 'top' | 'bottom' } | null>(null);
  const hostRef = useRef<HTMLSpanElement>(null);
  const tipRef = useRef<HTMLSpanElement>(null);
  const id = useId();

  useLayoutEffect(() => {
    if (!open) {
      setPosition(null);
      return;
    }
    const place = () => {
      const host = hostRef.current?.getBoundingClientRect();
      const tip = tipRef.current;
      if (!host || !tip) return;
      const { offsetWidth: w, offsetHeight: h } = tip;
      const roomAbove = host.top - GAP - h >= MARGIN;
      const roomBelow = host.bottom + GAP + h <= window.innerHeight - MARGIN;
      let side = placement;
      if (side === 'top' && !roomAbove && roomBelow) side = 'bottom';
      else if (side === 'bottom' && !roomBelow && roomAbove) side = 'top';
      const top = side === 'top' ? host.top - GAP - h : host.bottom + GAP;
      const left = Math.max(MARGIN, Math.min(host.left + host.width / 2 - w / 2, window.innerWidth - MARGIN - w));
      setPosition({ left, top, side });
    };
    place();
    // Capture: a scroll of any container (the table scrolls sideways) moves the trigger.
    window.addEventListener('scroll', place, true);
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place, true);
      window.removeEventListener('resize', place);
    };
  }, [open, placement]);

  const style: CSSProperties = {
    position: 'fixed',
    left: position?.left ?? 0,
    top: position?.top ?? 0,
    right: 'auto',
    bottom: 'auto',
    transform: 'none',
    // Measured first, shown once placed.
    visibility: position ? 'visible' : 'hidden',
  };
  return (
    <span
      ref={hostRef}
      className="tooltip-host"
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setOpen(false);
      }}
      aria-describedby={open ? id : undefined}
    >
      {children}
      {open &&
        createPortal(
          <span ref={tipRef} id={id} role="tooltip" className={`tooltip tooltip-${position?.side ?? placement}`} style={style}>
            {content}
          </span>,
          document.body,
        )}
    </span>
  );
}
