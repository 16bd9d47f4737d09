/**
 * The tutorial (part 2 §2: seven sections, each with an image carousel). The pictures are real
 * screenshots of this console on a seeded journal, written by `npm run screenshots`
 * (web/scripts/screenshots.ts), which reads the file names from here: change a shot here and run it.
 * Plain data, no JSX, so the script can import it under Node.
 */
export interface TutorialShot {
  /** File in ../images/ (JPEG). */
  file: string;
  caption: string;
}

export interface TutorialSection {
  id: string;
  title: string;
  paragraphs: string[];
  /** Rules or steps shown as a list under the text. */
  points?: string[];
  /** "More about ..." shown on demand (rolling and breaking). */
  extra?: { title: string; points: string[] };
  shots: TutorialShot[];
}

export const tutorialSections: TutorialSection[] = [
  {
    id: 'trade-account',
    title: '1. Create a trade account',
    paragraphs: [
      'Every trade belongs to a trade account: the broker account you traded in. Open Accounts in the sidebar and choose Add Trade Account.',
      'Give it a name, the account type (Cash, Margin, IRA, 403(b), 401(k), Roth IRA) and the brokerage. Commission (0.65) and fee (0.03) per contract are filled in for you; change them to what your broker charges. You can keep up to 10 accounts; the first one becomes the default.',
    ],
    shots: [
      { file: 'trade-account-1.jpg', caption: 'Accounts: one card per trade account, the default marked.' },
      { file: 'trade-account-2.jpg', caption: 'Add Account: name, type, brokerage, commission and fee.' },
    ],
  },
  {
    id: 'before-you-start',
    title: '2. What to know before adding trades',
    paragraphs: ['The journal checks every trade as you enter it. These rules keep the figures right:'],
    points: [
      'Dates go back at most two years. No future dates by US Eastern time, except the expiration date, and no weekends.',
      'Premium, fee, delta, strikes, stock price, contract size and cost basis are positive numbers.',
      'Enter the premium positive: the strategy decides whether it is a credit or a debit. Total premium = price × 100 × contracts, before fees.',
      'Premium and fee are totals for all contracts; cost basis is per share. For multi-leg trades record only the net delta.',
      'Closed trades are final: they cannot be edited or deleted. Open trades can.',
    ],
    shots: [
      { file: 'before-you-start-1.jpg', caption: 'The New Record menu: Open Trade, Closed Trade and Trade Account.' },
      { file: 'before-you-start-2.jpg', caption: 'A field that breaks a rule says why, and Next stays disabled.' },
    ],
  },
  {
    id: 'open-trade',
    title: '3. Add an open trade',
    paragraphs: [
      'New Record → Open Trade. Choose the account, the ticker and the strategy; the form shows one row of strikes per leg and refuses strikes in the wrong order (a Bull Put Spread buys the lower put).',
      'Then the dates, contracts, premium, fee and delta. The trade appears in Open, and in Expiring when seven days or fewer remain.',
    ],
    shots: [
      { file: 'open-trade-1.jpg', caption: 'Step 1: account, ticker and strategy.' },
      { file: 'open-trade-2.jpg', caption: 'The Open list: every position still open, with its exit buttons.' },
    ],
  },
  {
    id: 'closed-trade',
    title: '4. Add a trade that is already closed',
    paragraphs: [
      'New Record → Closed Trade records a position that already ended, with the opening and the closing side in one go: useful for back-filling your history (up to two years back).',
    ],
    shots: [
      { file: 'closed-trade-1.jpg', caption: 'Closed Trade: the opening data first, then how it ended.' },
      { file: 'closed-trade-2.jpg', caption: 'The Closed list with each trade’s disposition and result.' },
    ],
  },
  {
    id: 'closing',
    title: '5. Close a trade',
    paragraphs: [
      'Press CLOSE on an open trade. Before expiry you can close it or record that it was exercised or called away; after expiry also settle it as expired worthless.',
      'With more than one contract you may close only part: the rest stays open with its share of the premium.',
    ],
    shots: [
      { file: 'closing-1.jpg', caption: 'Close Trade: contracts, date, premium and fee of the close.' },
      { file: 'closing-2.jpg', caption: 'The trade’s details, with its figures.' },
    ],
  },
  {
    id: 'rolling',
    title: '6. Roll a trade',
    paragraphs: ['ROLL closes the position and opens its continuation (another expiry or strike) in one step. It records two entries: the close, listed under Rolled, and the new open trade.'],
    extra: {
      title: 'More about rolls',
      points: [
        'Partial rolls are allowed with more than one contract: roll some contracts, keep the others.',
        'The new trade remembers where it came from; Roll History shows the whole chain from the position you first entered.',
        'A roll can itself be rolled again as often as you like.',
      ],
    },
    shots: [
      { file: 'rolling-1.jpg', caption: 'Roll Trade: the closing side and the new position.' },
      { file: 'rolling-2.jpg', caption: 'The Rolled list: the closing half of every roll.' },
    ],
  },
  {
    id: 'breaking',
    title: '7. Break a multi-leg trade',
    paragraphs: ['BREAK turns a two-leg trade (a vertical spread, straddle or strangle) into one entry per leg: you close one leg, the other continues as its own open trade.'],
    extra: {
      title: 'More about breaking',
      points: [
        'Only two-leg trades can be broken, and always the whole trade: there is no partial break.',
        'The two legs’ premiums must add up to the trade’s total premium; each leg gets half of the opening fee.',
        'A break cannot be undone. Split History on the remaining leg shows where it came from.',
      ],
    },
    shots: [
      { file: 'breaking-1.jpg', caption: 'Split Trade, step 1: the premium of each leg.' },
      { file: 'breaking-2.jpg', caption: 'An open spread with its BREAK button.' },
    ],
  },
];
