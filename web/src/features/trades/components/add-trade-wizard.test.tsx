// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import type { Account } from '@oj/contracts/accounts';
import { strategyCatalogue } from '@oj/contracts/strategies';
import { AddTradeWizard } from './add-trade-wizard.tsx';

const account: Account = { uid: 'acc-1', name: 'Main', broker: 'IBKR', ac_type: 1, broker_commission: 0.65, broker_fee: 0, bg_image: null, default_account: true };

/** The wizard with its lists already cached, so nothing is fetched. */
function renderWizard(mode: 'open' | 'closed') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['accounts'], [account]);
  client.setQueryData(['strategies'], strategyCatalogue);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <AddTradeWizard mode={mode} initialDate="2026-01-05" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const banner = () => screen.queryByText('There are errors in the form.');

describe('AddTradeWizard', () => {
  it('Add Closed Trade: the banner leaves with the last error, when Expire Worthless locks the close fields', async () => {
    const user = userEvent.setup();
    renderWizard('closed');
    // A cash-secured put opened and expired in the past, so Expire Worthless is offered.
    await user.selectOptions(screen.getByLabelText(/^Strategy Type/), 'One-leg');
    await user.selectOptions(screen.getByLabelText(/^Strategy(?! Type)/), 'cash-secured-put');
    await user.type(screen.getByLabelText(/^Ticker/), 'AAPL');
    await user.type(screen.getByLabelText(/^Stock Price/), '100');
    await user.type(screen.getByLabelText(/^Expiration Date/), '2026-01-16');
    await user.type(screen.getByLabelText(/^Strike 1/), '95');
    await user.type(screen.getByLabelText(/^Delta/), '0.3');
    await user.type(screen.getByLabelText(/^Net Premium/), '150');
    await user.type(screen.getByLabelText(/^Net Fee/), '1.3');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    const submit = await screen.findByRole('button', { name: 'Submit Full Trade' });

    // Close with no transaction, premium or fee.
    await user.click(submit);
    expect(banner()).not.toBeNull();
    expect(screen.getByLabelText(/^Premium to Close/).getAttribute('aria-invalid')).toBe('true');

    await user.selectOptions(screen.getByLabelText(/^Close Action/), 'expireWorthless');
    expect(screen.getByLabelText(/^Premium to Close/).getAttribute('aria-invalid')).toBeNull();
    expect(banner()).toBeNull();

    // Back to a plain close: the errors, and with them the banner, come back without another Submit.
    await user.selectOptions(screen.getByLabelText(/^Close Action/), 'close');
    expect(screen.getByLabelText(/^Premium to Close/).getAttribute('aria-invalid')).toBe('true');
    expect(banner()).not.toBeNull();
  });
});
