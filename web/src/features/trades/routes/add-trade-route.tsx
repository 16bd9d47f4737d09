import { useState } from 'react';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { AddTradeWizard } from '../components/add-trade-wizard.tsx';
import '../components/trades.css';

/** /trades/add: the add-trade forms as a page, open or already closed. */
export function AddTradeRoute() {
  const [mode, setMode] = useState<'open' | 'closed'>('open');
  return (
    <section className="trade-add-page">
      <PageHeader
        title={mode === 'open' ? 'Add Open Trade' : 'Add Closed Trade'}
        description="Premium and fee are totals for all contracts, before fees; dates are New York business dates."
        breadcrumb={[{ label: 'Dashboard', to: '/dashboard' }, { label: 'Trades' }, { label: 'Add Trade' }]}
      />
      <div className="segmented" role="group" aria-label="Kind of trade">
        <button type="button" aria-pressed={mode === 'open'} onClick={() => setMode('open')}>
          Open Trade
        </button>
        <button type="button" aria-pressed={mode === 'closed'} onClick={() => setMode('closed')}>
          Closed Trade
        </button>
      </div>
      <div className="card trade-add-card">
        <AddTradeWizard key={mode} mode={mode} />
      </div>
    </section>
  );
}
