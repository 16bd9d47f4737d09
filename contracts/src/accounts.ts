import { z } from 'zod';

/**
 * Trade (brokerage) accounts, part 2 §2, §3, §5. The server speaks the payload names (name, broker,
 * ac_type, broker_commission, broker_fee); the console form has its own field names and maps them.
 */

export const MAX_TRADE_ACCOUNTS = 10;
export const DEFAULT_COMMISSION = 0.65;
export const DEFAULT_FEE = 0.03;
export const ACCOUNT_IMAGE_MAX_SIDE = 1200;

/** Account type codes and labels. */
export const accountTypes = [
  { code: 1, label: 'Cash' },
  { code: 2, label: 'Margin' },
  { code: 3, label: 'IRA' },
  { code: 4, label: '403(b)' },
  { code: 5, label: '401(k)' },
  { code: 6, label: 'Roth IRA' },
] as const;
export type AccountTypeCode = (typeof accountTypes)[number]['code'];
export const accountTypeLabel = (code: number): string | undefined => accountTypes.find((t) => t.code === code)?.label;

/** The brokerage choices. `key` is what the server stores; `logo` names the console's logo asset; Other has no login page (null). */
export const brokerages = [
  { key: 'schwab', name: 'Charles Schwab', login_url: 'https://client.schwab.com/Areas/Access/Login', logo: 'schwab' },
  { key: 'fidelity', name: 'Fidelity', login_url: 'https://digital.fidelity.com/prgw/digital/login/full-page', logo: 'fidelity' },
  { key: 'etrade', name: 'E*TRADE', login_url: 'https://us.etrade.com/etx/pxy/login', logo: 'etrade' },
  { key: 'ibkr', name: 'Interactive Brokers', login_url: 'https://www.interactivebrokers.com/sso/Login', logo: 'ibkr' },
  { key: 'robinhood', name: 'Robinhood', login_url: 'https://robinhood.com/login', logo: 'robinhood' },
  { key: 'tastytrade', name: 'tastytrade', login_url: 'https://my.tastytrade.com/login.html', logo: 'tastytrade' },
  { key: 'webull', name: 'Webull', login_url: 'https://www.webull.com/center', logo: 'webull' },
  { key: 'merrill', name: 'Merrill Edge', login_url: 'https://www.merrilledge.com/', logo: 'merrill' },
  { key: 'vanguard', name: 'Vanguard', login_url: 'https://logon.vanguard.com/logon', logo: 'vanguard' },
  { key: 'other', name: 'Other', login_url: null, logo: 'other' },
] as const;
export type BrokerageKey = (typeof brokerages)[number]['key'];
export const brokerageKeys = brokerages.map((b) => b.key) as [BrokerageKey, ...BrokerageKey[]];
export const brokerageOf = (key: string) => brokerages.find((b) => b.key === key);

export const accountMessages = {
  nameRequired: 'Account Name is required.',
  nameCharacters: 'Account Name cannot contain control characters.',
  typeRequired: 'Account Type is required.',
  brokerageRequired: 'Brokerage is required.',
  commission: 'Commission must be a non-negative number.',
  fee: 'Fee must be a non-negative number.',
  commissionStep: 'Commission can have at most 2 decimal places.',
  feeStep: 'Fee can have at most 2 decimal places.',
  commissionMax: 'Commission cannot exceed 1,000,000.',
  feeMax: 'Fee cannot exceed 1,000,000.',
  limit: `You can keep at most ${MAX_TRADE_ACCOUNTS} trade accounts.`,
  nameTaken: 'You already have an account with this name.',
  notFound: 'Account not found.',
  subscriptionExpired: 'Your subscription has expired, please renew to manage trade accounts.',
  notAnImage: 'The file is not an image. Upload a JPEG, PNG, WebP, GIF, AVIF or TIFF picture.',
  imageTooLarge: 'The image is too large (at most 6 MB).',
  imageTooManyPixels: 'The picture is too large: at most 50 megapixels (7,000 × 7,000, for example). Make it smaller and upload it again.',
  imageMissing: 'An image is required.',
} as const;

const accountName = z
  .string({ error: accountMessages.nameRequired })
  .trim()
  .min(1, accountMessages.nameRequired)
  .max(60, 'Account Name cannot exceed 60 characters.')
  // Control characters (NUL cannot even be stored) have no place in a name shown on a card.
  .refine((v) => !/\p{Cc}/u.test(v), accountMessages.nameCharacters);
const accountType = z.union(accountTypes.map((t) => z.literal(t.code)) as unknown as [z.ZodLiteral<AccountTypeCode>, z.ZodLiteral<AccountTypeCode>], {
  error: accountMessages.typeRequired,
});
const brokerage = z.enum(brokerageKeys, { error: accountMessages.brokerageRequired });
/** Commission and fee: part 2 §5 "not below 0", "numeric step 0.01" (QA: 0.005 was kept and shown as 0.01). */
type PerContract = 'commission' | 'fee';
const ACCOUNT_AMOUNT_MAX = 1_000_000;
const hasCents = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;
function perContractIssue(n: number, which: PerContract): string | null {
  if (!Number.isFinite(n) || n < 0) return accountMessages[which];
  if (n > ACCOUNT_AMOUNT_MAX) return accountMessages[`${which}Max`];
  if (!hasCents(n)) return accountMessages[`${which}Step`];
  return null;
}
const nonNegative = (which: PerContract) =>
  z.number({ error: accountMessages[which] }).superRefine((n, ctx) => {
    const message = perContractIssue(n, which);
    if (message) ctx.addIssue({ code: 'custom', message });
  });

/** POST /accounts/add-account. Commission and fee default to 0.65 and 0.03. */
export const addAccountRequest = z.object({
  name: accountName,
  broker: brokerage,
  ac_type: accountType,
  broker_commission: nonNegative('commission').default(DEFAULT_COMMISSION),
  broker_fee: nonNegative('fee').default(DEFAULT_FEE),
});
export type AddAccountRequest = z.infer<typeof addAccountRequest>;

/** PATCH /accounts/update/{uid}: only the fields that changed. */
export const updateAccountRequest = z.object({
  name: accountName.optional(),
  broker: brokerage.optional(),
  ac_type: accountType.optional(),
  broker_commission: nonNegative('commission').optional(),
  broker_fee: nonNegative('fee').optional(),
});
export type UpdateAccountRequest = z.infer<typeof updateAccountRequest>;

export const updateDefaultAccountRequest = z.object({ old_default: z.string().min(1).max(64), new_default: z.string().min(1).max(64) });
export type UpdateDefaultAccountRequest = z.infer<typeof updateDefaultAccountRequest>;

export const accountParams = z.object({ uid: z.string().min(1).max(64) });

/** POST /accounts/account-image/{uid}: a base64 image (a `data:` URL prefix is accepted). */
export const accountImageRequest = z.object({
  image: z.string({ error: accountMessages.imageMissing }).min(1, accountMessages.imageMissing),
  image_for: z.literal('account').default('account'),
});
export const accountImageResponse = z.object({ url: z.string() });

export const account = z.object({
  uid: z.string(),
  name: z.string(),
  broker: z.string(),
  ac_type: z.number().int(),
  broker_commission: z.number(),
  broker_fee: z.number(),
  /** Cover image URL, null for the generated default. */
  bg_image: z.string().nullable(),
  default_account: z.boolean(),
});
export type Account = z.infer<typeof account>;
export const accountList = z.array(account);

/**
 * The console's add/edit form. Commission and fee arrive as typed text; an empty or non-numeric value
 * gets the spec's message.
 */
const formNumber = (which: PerContract) =>
  z.union([z.number(), z.string()], { error: accountMessages[which] }).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v);
    const message = perContractIssue(n, which);
    if (message) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return n;
  });
export const accountForm = z.object({
  accountName,
  accountType: z.coerce.number({ error: accountMessages.typeRequired }).pipe(accountType),
  brokerage: z.string({ error: accountMessages.brokerageRequired }).min(1, accountMessages.brokerageRequired).pipe(brokerage),
  commission: formNumber('commission'),
  fee: formNumber('fee'),
});
export type AccountForm = z.input<typeof accountForm>;
export type AccountFormValues = z.output<typeof accountForm>;

/** Form values to the API payload. */
export const accountPayloadOf = (f: AccountFormValues): AddAccountRequest => ({
  name: f.accountName,
  broker: f.brokerage,
  ac_type: f.accountType,
  broker_commission: f.commission,
  broker_fee: f.fee,
});
