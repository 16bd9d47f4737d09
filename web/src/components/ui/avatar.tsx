import { useState } from 'react';

/** The user's picture, or the default avatar (a neutral silhouette) when there is none or it fails to load. */
export function Avatar({ src, name, size = 36 }: { src?: string | null; name?: string; size?: number }) {
  const [failed, setFailed] = useState(false);
  if (src && !failed) {
    return <img className="avatar" src={src} alt={name ? `${name}'s avatar` : 'Avatar'} width={size} height={size} onError={() => setFailed(true)} />;
  }
  return (
    <span className="avatar avatar-default" style={{ width: size, height: size }} role="img" aria-label={name ? `${name}'s avatar` : 'Avatar'}>
      <svg viewBox="0 0 40 40" width={size} height={size} aria-hidden="true">
        <circle cx="20" cy="15" r="7" fill="currentColor" opacity="0.55" />
        <path d="M6 36c1.5-7.5 7-11 14-11s12.5 3.5 14 11" fill="currentColor" opacity="0.55" />
      </svg>
    </span>
  );
}
