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

function initials(name: string): string {
  const letters = name.replace(/[^A-Za-z ]/g, ' ').trim().split(/\s+/);
  return letters.length > 1 ? `${letters[0]![0]}${letters[1]![0]}`.toUpperCase() : name.replace(/[^A-Za-z]/g, '').slice(0, 2).toUpperCase();
}

export function BrokerageLogo({ broker, size = 40 }: { broker: string; size?: number }) {
  const b = brokerageOf(broker);
  const name = b?.name ?? broker;
  return (
    <span className="brokerage-logo" style={{ width: size, height: size, background: colors[b?.logo ?? 'other'] ?? colors.other, fontSize: size * 0.36 }} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
