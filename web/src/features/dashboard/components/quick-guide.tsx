import { Modal } from '@/components/ui/modal.tsx';

/** Quick Guide (part 2 §2): what each widget shows. */
export function QuickGuide({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} onClose={onClose} title="Quick Guide" size="lg">
      <div className="dash-guide">
        <section>
          <h3>Premium Income</h3>
          <p>
            Lifetime premium combines realized and unrealized premium: what closed trades kept plus what open trades collected. It excludes capital gains and fees. Week
            is the last 7 days, Month the last 30 days, YTD from 1 January and Year the last 12 months.
          </p>
        </section>
        <section>
          <h3>Income Quadrant and Performance Metrics</h3>
          <p>Today, this week, this month and this year, each against the previous one. Performance compares the last 30 days with the 30 before, or the year to date with last year to the same day.</p>
        </section>
        <section>
          <h3>Daily charts</h3>
          <p>Daily Premium and Open/Close Count cover the last 10 active days (days with a trade opened or closed).</p>
        </section>
        <section>
          <h3>Income Calendar</h3>
          <p>
            The strip covers the current week and resets every Sunday. <span className="guide-dot tone-positive" /> green: net premium collected,{' '}
            <span className="guide-dot tone-negative" /> red: net premium paid, <span className="guide-dot tone-even" /> yellow: break-even, <span className="guide-dot tone-none" /> white: no trades.
            Clicking a day shows its trades.
          </p>
        </section>
        <section>
          <h3>Disposition and Trade Flow</h3>
          <p>Disposition is how trades close: expired, closed manually, early exit (closed before expiration), rolled, assigned, called away or exercised. Trade Flow follows finalized trades from strategy to disposition.</p>
        </section>
        <section>
          <h3>Realized Income and Income By Month</h3>
          <p>Realized Income shows your top 5 tickers for the last 3 years, with a year selector. Income By Month covers the last 12 months.</p>
        </section>
      </div>
    </Modal>
  );
}
