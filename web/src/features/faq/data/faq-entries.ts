/**
 * The FAQ (part 2 §2, §3: id, category, question, answer as HTML). Answers are authored here in a small
 * HTML subset (p, ul, ol, li, strong, em, code, a) and still pass the sanitiser before they are drawn,
 * so a slip in this file cannot become a script in the page. Figures and rules match docs/formulas.md,
 * docs/strategies.md and the spec; change them together.
 */
export const faqCategories = ['General', 'Billing', 'Journaling', 'Technical'] as const;
export type FaqCategory = (typeof faqCategories)[number];

export interface FaqEntry {
  id: string;
  category: FaqCategory;
  question: string;
  answer: string;
}

export const faqEntries: FaqEntry[] = [
  // General
  {
    id: 'what-is-it',
    category: 'General',
    question: 'What is Options Journal?',
    answer:
      '<p>A journal for your option trades. You record each position when you open it and again when it ends (closed, rolled, expired, assigned, called away or exercised), and the journal works out what you earned: net premium, fees, win rate, return on risk and annualised return, per trade, per day, per ticker and per strategy.</p><p>It is a record-keeping tool: it does not connect to your broker and places no orders.</p>',
  },
  {
    id: 'not-advice',
    category: 'General',
    question: 'Does the journal give trading advice?',
    answer: '<p>No. Every figure is computed from the trades <em>you</em> entered. Nothing in the product is financial advice or a recommendation to buy or sell anything.</p>',
  },
  {
    id: 'strategies',
    category: 'General',
    question: 'Which option strategies can I record?',
    answer:
      '<p>Twenty strategies in three groups:</p><ul><li><strong>One leg:</strong> Cash-Secured Put, Covered Call, Naked Call, Naked Put, Long Call, Long Put, Buy-Write.</li><li><strong>Two legs:</strong> PMCC, Bull Put, Bear Call, Bull Call and Bear Put spreads, Calendar Call and Calendar Put spreads, Long and Short Straddle, Long and Short Strangle.</li><li><strong>Four legs:</strong> Iron Condor and Iron Butterfly.</li></ul><p>The strategy decides whether the trade opens as a credit or a debit, which strike rules the legs must follow (for example the bought put of a Bull Put Spread below the sold one), and which in-the-money outcome is offered at expiry (Assigned, Called Away or Exercised).</p>',
  },
  {
    id: 'eastern-time',
    category: 'General',
    question: 'Why does the journal say my date is in the future?',
    answer:
      '<p>All dates use <strong>US Eastern time</strong> (New York), the time zone of the US options market. If you live east of New York, your calendar may already show tomorrow while it is still today in New York, and a trade dated "today" is then refused as a future date. Enter the New York date, or wait until midnight in New York.</p>',
  },
  {
    id: 'lists',
    category: 'General',
    question: 'What are the Expiring, Open, Closed and Rolled lists?',
    answer:
      '<ul><li><strong>Expiring</strong>: open trades that expire within 7 days, or have already expired and still need an outcome. The bell in the top bar shows the first five.</li><li><strong>Open</strong>: every position still open.</li><li><strong>Closed</strong>: every position that ended, with its disposition and result.</li><li><strong>Rolled</strong>: the closing half of each roll, with a link to its roll history.</li></ul><p>Each list can be filtered by ticker, account, strategy and dates.</p>',
  },
  {
    id: 'contact',
    category: 'General',
    question: 'How do I reach support?',
    answer: '<p>Use the <a href="/contact">Contact</a> page: write a subject and a message. It reaches the support team with your account e-mail, and we answer by e-mail.</p>',
  },
  // Billing
  {
    id: 'price',
    category: 'Billing',
    question: 'How much does it cost?',
    answer:
      '<p>One plan, Premium, at <strong>4.99 USD per month</strong>, billed monthly in US dollars by card. It includes everything: the dashboard, the income calendar, share cards, several trade accounts and both new and back-dated trades.</p>',
  },
  {
    id: 'trial',
    category: 'Billing',
    question: 'Is there a free trial?',
    answer:
      '<p>Yes. Every new account starts a <strong>30-day free trial</strong> at sign-up, with every feature and no card needed. To continue after the trial, subscribe on the <a href="/subscription">Subscription</a> page; nothing is charged until the trial ends.</p>',
  },
  {
    id: 'expired',
    category: 'Billing',
    question: 'What happens when my trial or subscription expires?',
    answer:
      '<p>Your data stays: no trade, account or figure is deleted. The trade lists, the calendar and Pulse show a locked screen with a <strong>Renew Now</strong> link, and adding or editing trade accounts is paused. Renewing restores access at once.</p>',
  },
  {
    id: 'cancel',
    category: 'Billing',
    question: 'How do I cancel, and do I get a refund?',
    answer:
      '<p>Cancel from the <a href="/subscription">Subscription</a> page at any time. Your subscription stays active until the end of the billing cycle you paid for, then ends; there are no refunds for unused time. Until the cycle ends you can undo the cancellation.</p>',
  },
  {
    id: 'grace',
    category: 'Billing',
    question: 'My card payment failed. Do I lose access immediately?',
    answer:
      '<p>No. A failed renewal starts a <strong>2-day grace period</strong> in which everything keeps working. Update your card on the Subscription page during that time; if the payment is still open when the cycle ends, the subscription expires until you renew.</p>',
  },
  {
    id: 'self-hosted-billing',
    category: 'Billing',
    question: 'Do I pay when I run the journal on my own computer?',
    answer:
      '<p>No. A self-hosted installation without payment keys (no <code>STRIPE_SECRET_KEY</code>) has no billing: every user has Premium without an end date and the trial never expires.</p>',
  },
  // Journaling
  {
    id: 'first-trade',
    category: 'Journaling',
    question: 'What do I need before I can add a trade?',
    answer:
      '<p>A <a href="/accounts">trade account</a> (the broker account the trade belongs to) and an active trial or subscription. Then use <strong>New Record</strong> in the top bar: <em>Open Trade</em> for a position you still hold, <em>Closed Trade</em> for one that already ended.</p><p>You can keep up to 10 trade accounts; a new account starts with a commission of 0.65 and a fee of 0.03 per contract, which you can change.</p>',
  },
  {
    id: 'date-rules',
    category: 'Journaling',
    question: 'Which dates can I enter?',
    answer:
      '<ul><li>Dates up to <strong>two years back</strong>.</li><li>No future dates (by US Eastern time), except the expiration date.</li><li>No weekend dates: options do not trade on Saturdays and Sundays.</li></ul>',
  },
  {
    id: 'premium',
    category: 'Journaling',
    question: 'How do I enter the premium and the fees?',
    answer:
      '<p>Enter the <strong>total</strong> premium for all contracts, always as a positive number: <code>price × 100 × contracts</code>, before fees. Selling one contract at 2.00 is a premium of 200. The strategy decides whether it counts as a credit (sell to open) or a debit (buy to open).</p><p>The fee is also the total for all contracts. For multi-leg trades record the net premium and the net delta of the whole position. Strikes, stock price, contract size and cost basis (per share) must be positive.</p>',
  },
  {
    id: 'close',
    category: 'Journaling',
    question: 'How do I close a trade, or only part of it?',
    answer:
      '<p>Choose <strong>CLOSE</strong> on the open trade. Before expiry you can close it (buy back or sell) or record that it was exercised or called away; after expiry you can also settle it as <em>expired worthless</em>.</p><p>With more than one contract you can close only some of them: the closed part becomes a closed trade and the rest stays open with the remaining contracts and its share of the premium.</p>',
  },
  {
    id: 'roll',
    category: 'Journaling',
    question: 'How is a roll recorded?',
    answer:
      '<p>A roll closes the current position and opens a new one (usually a later expiry or another strike) in one step, so it records <strong>two entries</strong>: the close, which appears in the Rolled list, and the new open trade, which remembers where it came from. Partial rolls are allowed with more than one contract.</p><p>The <strong>Roll History</strong> of a trade shows the whole chain, from the position as you first entered it through every roll and partial close.</p>',
  },
  {
    id: 'break',
    category: 'Journaling',
    question: 'What does BREAK do on a spread?',
    answer:
      '<p>BREAK splits a two-leg trade (verticals, straddles and strangles) into one entry per leg: one leg is closed, the other continues as its own open trade. The two legs\' premiums must add up to the trade\'s total premium, and each leg gets half of the opening fee.</p><p>A break is for the whole trade (no partial break) and cannot be undone. <strong>Split History</strong> on the remaining leg shows where it came from.</p>',
  },
  {
    id: 'edit-delete',
    category: 'Journaling',
    question: 'Can I edit or delete a trade?',
    answer:
      '<p>Open trades can be edited or deleted. Closed trades are final: they cannot be edited or deleted, so check the closing details before you confirm. Account, ticker, open date and contract size cannot be changed on a trade that came from a roll or a break.</p>',
  },
  {
    id: 'net-premium',
    category: 'Journaling',
    question: 'How are net premium and profit computed?',
    answer:
      '<p><strong>Net premium captured</strong> = premium at open (+ for a credit, − for a debit) + premium at close (+ credit, − debit). Sold a put for 200 and bought it back for 50: 200 − 50 = <strong>150</strong>.</p><p><strong>Net profit/loss</strong> = net premium − fees to open and close. With 1 + 1 in fees: 150 − 2 = <strong>148</strong>. A closed trade is a <strong>win</strong> when this is above 0; capital gains from assignment do not count as premium.</p>',
  },
  {
    id: 'capture-rate',
    category: 'Journaling',
    question: 'What is the premium capture rate?',
    answer:
      '<p>How much of the premium you kept: net premium ÷ premium at open × 100 for credit trades (÷ premium at close for debit trades). The put sold for 200 and bought back for 50 kept 150 of 200: <strong>75.00%</strong>. A trade that expired worthless keeps 100%.</p>',
  },
  {
    id: 'ror-arr',
    category: 'Journaling',
    question: 'How are return on risk (ROR) and annualised return (ARR) computed?',
    answer:
      '<p><strong>ROR</strong> = (net premium − fees) ÷ collateral × 100. Collateral is what your broker holds or what you can lose: strike × 100 × contracts for a cash-secured put, the spread width × 100 × contracts minus the credit for a credit spread, the debit paid for a debit trade.</p><p><strong>ARR</strong> = ROR × 365 ÷ days held (a same-day trade counts as one day). The put above, strike 100, held 2 days: ROR = 148 ÷ 10,000 × 100 = 1.48%, ARR = 1.48 × 365 ÷ 2 = 270.10%.</p>',
  },
  {
    id: 'disposition',
    category: 'Journaling',
    question: 'What do Early Exit, Closed, Rolled, Assigned, Called Away, Expired and Exercised mean?',
    answer:
      '<p>They are a closed trade\'s <strong>disposition</strong>, how it ended: <em>Early Exit</em> closed before its expiration date, <em>Closed</em> closed on it, <em>Rolled</em> closed by a roll, <em>Assigned</em> / <em>Called Away</em> / <em>Exercised</em> settled in the money, <em>Expired</em> expired worthless. The dashboard and Pulse count trades by disposition.</p>',
  },
  {
    id: 'trades-of-a-day',
    category: 'Journaling',
    question: 'Which trades appear on a given day of the calendar?',
    answer:
      '<p>Every trade opened or closed that day (New York date). A trade opened and closed the same day (a <strong>scalp</strong>) counts as two trades. The day\'s premium adds credits and subtracts debits, so it is the cash that moved that day.</p>',
  },
  // Technical
  {
    id: 'self-host',
    category: 'Technical',
    question: 'Can I run the journal myself?',
    answer:
      '<p>Yes. With Node.js 24 installed, <code>npm install</code> then <code>npm start</code> runs the whole product on one port (http://localhost:3000) with no other server: data is kept under <code>./.data</code>. For PostgreSQL, Redis and separate processes, <code>docker compose up --build</code> starts the services mode. The README lists every setting.</p>',
  },
  {
    id: 'data-export',
    category: 'Technical',
    question: 'Can I export or back up my data?',
    answer:
      '<p>There is no export button in the console yet. Every trade is stored as an event in an append-only log, so nothing you entered is ever overwritten.</p><ul><li><strong>Self-hosted:</strong> stop the server and copy the data directory (<code>./.data</code>), or back up the PostgreSQL database with <code>pg_dump</code> in services mode.</li><li><strong>Hosted:</strong> ask through <a href="/contact">Contact</a> and support sends you a copy of your journal.</li></ul>',
  },
  {
    id: 'logos',
    category: 'Technical',
    question: 'Why do some tickers show letters instead of a logo?',
    answer:
      '<p>Logos come from a logo service only when the operator configured one (<code>TICKER_LOGO_URL</code>); otherwise, and whenever a logo cannot be loaded, the ticker shows a coloured badge with its initials. Leveraged ETFs (such as TQQQ, SQQQ, SOXL or UVXY) always show initials, because a logo service would show the fund company\'s logo, which says nothing about the fund itself.</p>',
  },
  {
    id: 'images',
    category: 'Technical',
    question: 'Which pictures can I use for my avatar and cover?',
    answer:
      '<p>Any image file your browser can open (JPEG, PNG, WebP, GIF, AVIF...) up to 20 MB. It is resized in your browser to 600 pixels on its longest side before the upload, and the server stores a fresh JPEG copy without the photo\'s metadata (such as the location where it was taken).</p>',
  },
  {
    id: 'sessions',
    category: 'Technical',
    question: 'Why was I signed out?',
    answer:
      '<p>Signing out in one tab signs out every tab of the same browser. A session also ends when its sign-in is older than the server allows (30 days by default), or when the password is reset with a reset link, which signs out every device. Sign in again: your data is untouched.</p><p>If the session ends while you are adding, closing, rolling, splitting or editing a trade, nothing is recorded. Sign in again in the same tab within the hour and the form comes back with what you had typed, for you to check and confirm again. If the trade was changed on another device meanwhile, the journal says what changed instead of recording over it.</p>',
  },
  {
    id: 'keyboard',
    category: 'Technical',
    question: 'Can I use the journal from the keyboard?',
    answer:
      '<p>Yes. Tab moves between fields and buttons, and Escape closes a dialog. In a trade form, Enter in a field moves to the next step. On the last step the summary of what will be recorded has the focus, so pressing Enter twice by accident records nothing: press Tab to reach the button (Submit, Close Trade, Split Trade or Update Trade), then Enter. From a summary, Back takes you to the first field of the form.</p>',
  },
];
