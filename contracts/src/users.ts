import { z } from 'zod';
import { INVISIBLE_CHARACTERS } from './common.ts';

/**
 * Identity contracts: sign-up, sign-in, verification, password reset and change, the session user and
 * the admin lookup. The spec's messages live here once; the server validates with these schemas and the
 * console forms use the same ones (and the checklists below for their live hints).
 */

/**
 * Support reads one user's history for an audit (never writes trades); Operator runs the projections
 * console. Both are staff: their own console never locks on a subscription.
 */
export const roleName = z.enum(['Admin', 'Super', 'Moderator', 'Support', 'Operator', 'User']);
export type RoleName = z.infer<typeof roleName>;
/** Roles whose subscription always shows as active. */
export const staffRoles: readonly RoleName[] = ['Admin', 'Super', 'Moderator', 'Support', 'Operator'];

// ---------------------------------------------------------------------------------------------------
// Name (sign-up, part 1 §5)

export const NAME_MIN = 3;
export const NAME_MAX = 20;

export const nameMessages = {
  required: 'Full Name is required.',
  twoWords: 'Please enter at least first and last name.',
  min: 'Name must be at least 3 characters.',
  max: 'Name cannot exceed 20 characters.',
  charset: 'Name can only contain letters, spaces, hyphens, and apostrophes.',
  repeated: 'Name cannot contain repeated spaces, hyphens, or apostrophes.',
  edgeSpace: 'Name cannot start or end with a space.',
  numbersOrEmojis: 'Name cannot contain numbers or emojis.',
} as const;

/**
 * Every unmet name rule, most specific first (a digit is reported as "numbers or emojis", not as a bad
 * character). The sign-up page shows the whole list; the server answers with the first.
 */
export function nameProblems(raw: string): string[] {
  if (raw.trim() === '') return [nameMessages.required];
  const out: string[] = [];
  if (/[\p{N}\p{Extended_Pictographic}]/u.test(raw)) out.push(nameMessages.numbersOrEmojis);
  if (raw !== raw.trim()) out.push(nameMessages.edgeSpace);
  if (!/^[\p{L}\p{M} '-]*$/u.test(raw) && !out.includes(nameMessages.numbersOrEmojis)) out.push(nameMessages.charset);
  if (/([ '-])\1/.test(raw) || /[ '-]{2,}/.test(raw)) out.push(nameMessages.repeated);
  const trimmed = raw.trim();
  if (trimmed.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length < 2) out.push(nameMessages.twoWords);
  if (trimmed.length < NAME_MIN) out.push(nameMessages.min);
  if (trimmed.length > NAME_MAX) out.push(nameMessages.max);
  return out;
}

export const fullName = z.string({ error: nameMessages.required }).superRefine((v, ctx) => {
  const [first] = nameProblems(v);
  if (first) ctx.addIssue({ code: 'custom', message: first });
});

// ---------------------------------------------------------------------------------------------------
// E-mail: forced to lower case (sign-up and sign-in)

export const emailMessages = { required: 'Email is required.', invalid: 'Invalid email format.' } as const;
// No control characters (NUL cannot even be stored).
const emailShape = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]{2,}$/u;

export const email = z
  .string({ error: emailMessages.required })
  // Before trimming: trim() would quietly drop a leading byte-order mark or a trailing U+2028 and let a
  // look-alike of an existing address through. Such an address is refused, not cleaned.
  .refine((v) => !INVISIBLE_CHARACTERS.test(v.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '')), { message: emailMessages.invalid, abort: true })
  .trim()
  .normalize('NFC')
  .toLowerCase()
  .superRefine((v, ctx) => {
    if (v === '') ctx.addIssue({ code: 'custom', message: emailMessages.required });
    else if (v.length > 254 || !emailShape.test(v)) ctx.addIssue({ code: 'custom', message: emailMessages.invalid });
  });

// ---------------------------------------------------------------------------------------------------
// Passwords

export const PASSWORD_SPECIALS = '!@#$%^&*()';
export const SIGNUP_PASSWORD_MIN = 6;
export const CHANGE_PASSWORD_MIN = 8;

export interface PasswordRule {
  id: 'length' | 'upper' | 'lower' | 'number' | 'special';
  label: string;
  ok: boolean;
}

/** The password checklist shown while typing (sign-up min 6, password change min 8). */
export function passwordChecklist(password: string, minLength: number): PasswordRule[] {
  return [
    { id: 'length', label: `At least ${minLength} characters`, ok: password.length >= minLength },
    { id: 'upper', label: 'At least one uppercase letter', ok: /[A-Z]/.test(password) },
    { id: 'lower', label: 'At least one lowercase letter', ok: /[a-z]/.test(password) },
    { id: 'number', label: 'At least one number', ok: /[0-9]/.test(password) },
    { id: 'special', label: `At least one special character (${PASSWORD_SPECIALS})`, ok: /[!@#$%^&*()]/.test(password) },
  ];
}
export const unmetPasswordRules = (password: string, minLength: number): string[] =>
  passwordChecklist(password, minLength)
    .filter((r) => !r.ok)
    .map((r) => r.label);

export const passwordMessages = {
  required: 'Password is required.',
  weak: 'Password does not meet all requirements.',
  mismatch: 'Passwords do not match.',
  terms: 'You must accept the terms and conditions.',
  signInBlank: 'Please enter both fields.',
  oldRequired: 'Old password is required',
  sameAsOld: 'Cannot use the same password',
  mismatchChange: 'Passwords do not match',
} as const;

/** Sign-up and reset-link password: every rule must pass; one message, the checklist shows which. */
export const newPassword = z
  .string({ error: passwordMessages.required })
  .max(128, 'Password cannot exceed 128 characters.')
  .superRefine((v, ctx) => {
    if (v === '') ctx.addIssue({ code: 'custom', message: passwordMessages.required });
    else if (unmetPasswordRules(v, SIGNUP_PASSWORD_MIN).length > 0) ctx.addIssue({ code: 'custom', message: passwordMessages.weak });
  });

// ---------------------------------------------------------------------------------------------------
// Sign-up

export const signupRequest = z.object({
  name: fullName,
  email,
  password: newPassword,
  agreed_to_terms: z.literal(true, { error: passwordMessages.terms }),
});
export type SignupRequest = z.infer<typeof signupRequest>;

/** The console's sign-up form: the same rules plus the confirmation. */
export const signupForm = z
  .object({
    name: fullName,
    email,
    password: newPassword,
    confirmPassword: z.string(),
    termsAccepted: z.literal(true, { error: passwordMessages.terms }),
  })
  .refine((f) => f.password === f.confirmPassword, { message: passwordMessages.mismatch, path: ['confirmPassword'] });
export type SignupForm = z.infer<typeof signupForm>;

export const SIGNUP_SUCCESS_MESSAGE = 'Account created successfully! Please check your email to verify your account.';

// ---------------------------------------------------------------------------------------------------
// Sign-in and session

const nonBlank = z.string({ error: passwordMessages.signInBlank }).refine((v) => v.trim() !== '', passwordMessages.signInBlank);
// Bounded so that nobody makes the server hash megabytes; longer values can never be a valid password.
export const loginRequest = z.object({
  email: nonBlank.pipe(z.string().max(254, 'Invalid email or password.')).transform((v) => v.trim().toLowerCase()),
  password: nonBlank.pipe(z.string().max(128, 'Invalid email or password.')),
});
export type LoginRequest = z.infer<typeof loginRequest>;

/** The user as the session stores it (login answer) and as the access token's `user` claim carries it. */
export const sessionUser = z.object({
  uid: z.string(),
  /** Same as uid; the console's stored user reads `user_uid`. */
  user_uid: z.string(),
  name: z.string(),
  email: z.string(),
  role: roleName,
  /** Effective subscription status code: 1 trial, 2 active, 3 expired, 4 canceled, 5 due, 6 pending, 7 unknown. */
  subs_status: z.number().int(),
  /** Verified e-mail (account confirmed). */
  uac: z.boolean(),
  /** Has a trade account (part 2 §3 reading of `tac`). */
  tac: z.boolean(),
  agreed_to_terms: z.boolean(),
  has_trade_account: z.boolean(),
  avatar: z.string().nullable(),
});
export type SessionUser = z.infer<typeof sessionUser>;

export const loginResponse = z.object({ user: sessionUser, access_token: z.string(), token_type: z.literal('bearer') });
export type LoginResponse = z.infer<typeof loginResponse>;
export const refreshResponse = z.object({ access_token: z.string(), token_type: z.literal('bearer') });
export type RefreshResponse = z.infer<typeof refreshResponse>;

/** The access token's claims (HS256 JWT): `sub` is the user uid. */
export const accessTokenClaims = z.object({ sub: z.string(), user: sessionUser, exp: z.number(), iat: z.number() });
export type AccessTokenClaims = z.infer<typeof accessTokenClaims>;

/** Profile answer of GET /users/current_user. */
export const currentUser = z.object({
  uid: z.string(),
  name: z.string(),
  username: z.string().nullable(),
  website: z.string().nullable(),
  bio: z.string().nullable(),
  email: z.string(),
  avatar: z.string().nullable(),
  bg_image: z.string().nullable(),
  agreed_to_terms: z.boolean(),
  account_confirmed: z.boolean(),
  has_trade_account: z.boolean(),
  role: roleName,
  subs_status: z.number().int(),
  user_since: z.string(),
});
export type CurrentUser = z.infer<typeof currentUser>;

export const messageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponse>;

// ---------------------------------------------------------------------------------------------------
// Verification and password reset

export const tokenParams = z.object({ token: z.string().min(1).max(200) });
export const emailQuery = z.object({ email });

export const VERIFY_SUCCESS_MESSAGE = 'Account Verified';
export const VERIFY_FAILED_MESSAGE = 'The token may be invalid or expired. Please request a new verification link.';
export const RESEND_VERIFICATION_MESSAGE = 'If the e-mail belongs to an unverified account, a new verification link was sent.';
export const RESET_REQUEST_MESSAGE =
  'If the e-mail matches an account, instructions to reset the password were sent. Check your spam folder after 5 minutes, or try another address.';
export const RESET_SUCCESS_MESSAGE = 'Password was set successfully.';

export const passwordResetRequest = z.object({ email });
export type PasswordResetRequest = z.infer<typeof passwordResetRequest>;

export const passwordResetBody = z.object({ email, new_password: newPassword });
export type PasswordResetBody = z.infer<typeof passwordResetBody>;

/** The console's reset-link form. */
export const passwordResetForm = z
  .object({ email, newPassword, confirmPassword: z.string() })
  .refine((f) => f.newPassword === f.confirmPassword, { message: passwordMessages.mismatchChange, path: ['confirmPassword'] });
export type PasswordResetForm = z.infer<typeof passwordResetForm>;

// ---------------------------------------------------------------------------------------------------
// Password change (part 2 §5): every unmet rule is its own issue, so a 422 lists them all.

const changePasswordNew = z.string({ error: passwordMessages.required }).superRefine((v, ctx) => {
  for (const label of unmetPasswordRules(v, CHANGE_PASSWORD_MIN)) ctx.addIssue({ code: 'custom', message: label });
});

export const updatePasswordRequest = z
  .object({
    old_password: z.string({ error: passwordMessages.oldRequired }).min(1, passwordMessages.oldRequired).max(128, 'Incorrect old password'),
    new_password: changePasswordNew.pipe(z.string().max(128, 'Password cannot exceed 128 characters.')),
  })
  .refine((b) => b.old_password === '' || b.old_password !== b.new_password, { message: passwordMessages.sameAsOld, path: ['new_password'] });
export type UpdatePasswordRequest = z.infer<typeof updatePasswordRequest>;

export const changePasswordForm = z
  .object({
    oldPassword: z.string().min(1, passwordMessages.oldRequired),
    newPassword: changePasswordNew,
    confirmPassword: z.string(),
  })
  .refine((f) => f.oldPassword === '' || f.oldPassword !== f.newPassword, { message: passwordMessages.sameAsOld, path: ['newPassword'] })
  .refine((f) => f.newPassword === f.confirmPassword, { message: passwordMessages.mismatchChange, path: ['confirmPassword'] });
export type ChangePasswordForm = z.infer<typeof changePasswordForm>;

export const INCORRECT_OLD_PASSWORD = 'Incorrect old password';
export const PASSWORD_UPDATED_MESSAGE = 'Password updated successfully!';

// ---------------------------------------------------------------------------------------------------
// Admin lookup (part 2 §3, §5)

export const adminSearchForm = z.object({
  email: z.string({ error: emailMessages.required }).trim().toLowerCase().min(1, emailMessages.required),
});
export const adminUserParams = adminSearchForm;

export const adminUser = z.object({
  name: z.string(),
  uid: z.string(),
  email: z.string(),
  username: z.string().nullable(),
  user_since: z.string(),
  bio: z.string().nullable(),
  website: z.string().nullable(),
  account_confirmed: z.boolean(),
  has_trade_account: z.boolean(),
  agreed_to_terms: z.boolean(),
  /** The user's role name (Admin, Super, Moderator, Support, Operator, User). */
  role_uid: roleName,
});
export type AdminUser = z.infer<typeof adminUser>;
