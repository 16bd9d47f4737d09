import { brokerageOf } from '@oj/contracts/accounts';

// Brand-neutral marks: initials on a colour per brokerage (no third-party logo files are shipped).
const colors: Record<string, string> = {
  schwab: '#00a0df',
  fidelity: '#368727',
  etrade: '#6633cc',
  ibkr: '#d81222',
  robinhood: '#00c805',
  tastytrade: '#e3173e',
  webull: '#1c5cf5',
  merrill: '#0052c2',
  vanguard: '#96151d',
  other: '#64748b',
};

/** Relative luminance of a '#rrggbb' colour (WCAG 2). */
function luminance(hex: string): number {
  const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The initials in white where white reaches 4.5:1 on the brand's colour, else in near-black: light brand
 * colours (Schwab's blue, Robinhood's green) would leave white initials unreadable.
 */
function inkOn(background: string): string {
  const white = 1.05 / (luminance(background) + 0.05);
  return white >= 4.5 ? '#ffffff' : '#0f172a';
}

function initials(name: string): string {
  const letters = name.replace(/[^A-Za-z ]/g, ' ').trim().split(/\s+/);
  return letters.length > 1 ? `${letters[0]![0]}${letters[1]![0]}`.toUpperCase() : name.replace(/[^A-Za-z]/g, '').slice(0, 2).toUpperCase();
}

export function BrokerageLogo({ broker, size = 40 }: { broker: string; size?: number }) {
  const b = brokerageOf(broker);
  const name = b?.name ?? broker;
  const background = colors[b?.logo ?? 'other'] ?? colors.other!;
  return (
    <span className="brokerage-logo" style={{ width: size, height: size, background, color: inkOn(background), fontSize: size * 0.36 }} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
