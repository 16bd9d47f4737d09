import type { ButtonHTMLAttributes, MouseEvent, ReactNode, Ref } from 'react';
import { Spinner } from './spinner.tsx';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'link';
export type ButtonSize = 'sm' | 'md' | 'lg';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /**
   * Shows a spinner and ignores activation; `children` may carry the busy label ("Resetting...").
   * The button stays focusable (aria-disabled, aria-busy), not natively disabled: a focused button that
   * becomes disabled drops keyboard focus to <body> (QA: Enter on Download, then focus was nowhere).
   */
  loading?: boolean;
  icon?: ReactNode;
  block?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

/**
 * A busy button's click does nothing: the handler is not called, and the default action is prevented, so
 * a submit button does not submit its form again (Enter in a field submits by clicking the default button).
 */
const ignoreClick = (e: MouseEvent<HTMLButtonElement>) => e.preventDefault();

export function Button({ variant = 'primary', size = 'md', loading = false, icon, block, className, children, disabled, type = 'button', ref, onClick, ...rest }: ButtonProps) {
  const classes = ['btn', `btn-${variant}`, `btn-${size}`, block ? 'btn-block' : '', className ?? ''].filter(Boolean).join(' ');
  const busy = loading && !disabled;
  return (
    <button
      ref={ref}
      type={type}
      className={classes}
      disabled={disabled}
      {...rest}
      aria-disabled={busy ? true : rest['aria-disabled']}
      aria-busy={loading ? true : rest['aria-busy']}
      onClick={busy ? ignoreClick : onClick}
    >
      {loading ? <Spinner size="sm" label="" /> : icon}
      {children !== undefined && children !== null && <span className="btn-label">{children}</span>}
    </button>
  );
}
