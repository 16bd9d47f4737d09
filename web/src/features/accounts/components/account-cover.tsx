/** The card's cover: the uploaded image, or a calm gradient generated from the account name. */
function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}

export function AccountCover({ name, url }: { name: string; url: string | null }) {
  if (url) return <img className="account-cover" src={url} alt={`Cover image of ${name}`} loading="lazy" />;
  const h = hash(name) % 360;
  return (
    <div
      className="account-cover account-cover-default"
      style={{ background: `linear-gradient(135deg, hsl(${h} 70% 45%), hsl(${(h + 40) % 360} 65% 32%))` }}
      role="img"
      aria-label={`Default cover of ${name}`}
    >
      <svg viewBox="0 0 400 120" preserveAspectRatio="none" aria-hidden="true">
        <path d="M0 95 L60 70 L110 82 L170 45 L230 60 L290 28 L340 40 L400 15" fill="none" stroke="rgba(255,255,255,0.45)" strokeWidth="3" />
        <path d="M0 95 L60 70 L110 82 L170 45 L230 60 L290 28 L340 40 L400 15 L400 120 L0 120Z" fill="rgba(255,255,255,0.08)" />
      </svg>
    </div>
  );
}
