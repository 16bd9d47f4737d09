import { Icon } from '@/components/ui/icons.tsx';

export const PLAN_FEATURES = ['Dynamic Extensive Dashboard', 'Interactive Income Calendar', 'Sharable Cards', 'Multiple Trade Accounts', 'Old and New Trades'] as const;

/** Part 2 §1: one all-inclusive plan; on a self-hosted installation (`billing` false), free for everyone. */
export function PlanCard({ billing }: { billing: boolean }) {
  return (
    <section className="card subscription-plan" aria-labelledby="subscription-plan-title">
      <h2 id="subscription-plan-title" className="card-title">
        Premium Plan
      </h2>
      <p className="plan-price">
        {billing ? (
          <>
            <span className="plan-amount">$4.99</span> <span className="muted">/ month (USD)</span>
          </>
        ) : (
          <>
            <span className="plan-amount">Free</span> <span className="muted">on this installation</span>
          </>
        )}
      </p>
      <ul className="plan-features">
        {PLAN_FEATURES.map((f) => (
          <li key={f}>
            <Icon name="check" size={16} /> {f}
          </li>
        ))}
      </ul>
      <p className="muted small">
        {billing
          ? '30-day free trial, no card needed. Cancel any time: access stays to the end of the billing period. No refunds for unused time.'
          : 'This installation is self-hosted and has no billing: every user has Premium without end, and nothing is ever charged.'}
      </p>
    </section>
  );
}
