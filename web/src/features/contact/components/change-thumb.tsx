import { useState } from 'react';

/**
 * An uploaded picture, or what became of it: a replaced picture's file is deleted on purpose (its public
 * URL must stop serving it), so its row says so instead of a broken image (QA).
 */
export function ChangeThumb({ label, src }: { label: string; src: string }) {
  const [gone, setGone] = useState(false);
  if (gone) return <span className="muted" title={src}>Replaced (file deleted)</span>;
  return <img className="change-thumb" src={src} alt={`${label} image`} title={src} width={64} height={40} onError={() => setGone(true)} />;
}
