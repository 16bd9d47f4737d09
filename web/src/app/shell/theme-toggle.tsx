import { useState } from 'react';
import { Icon } from '../../components/ui/icons.tsx';
import { applyTheme, savedTheme, type Theme } from '../../lib/theme.ts';

/** Light/dark switch; the choice is remembered, the system preference is the default. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(savedTheme);
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={`Switch to ${next} theme`}
      title={`Switch to ${next} theme`}
      onClick={() => {
        setTheme(next);
        applyTheme(next, true);
      }}
    >
      <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
    </button>
  );
}
