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
export function nameProblems(typed: string): string[] {
  // Counted and checked as the letters a reader sees: "e" + a combining accent is one letter (QA).
  const raw = typed.normalize('NFC');
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

export const fullName = z.string({ error: nameMessages.required }).normalize('NFC').superRefine((v, ctx) => {
  const [first] = nameProblems(v);
  if (first) ctx.addIssue({ code: 'custom', message: first });
});

// ---------------------------------------------------------------------------------------------------
// E-mail: forced to lower case (sign-up and sign-in)

export const emailMessages = { required: 'Email is required.', invalid: 'Invalid email format.' } as const;
// An address mail can be delivered to (RFC 5321's dot-atom, letters of any script allowed as RFC 6531
// does): no leading, trailing or doubled dot in the local part, no quoted local part, a domain name of
// labels that neither start nor end with a hyphen and a top-level label of letters (or an IDN's `xn--`),
// no IP literal. QA: `a@example..com`, `.a@example.com`, `a@-example.com`, `a@[127.0.0.1]` and
// `"q"@example.com` were accepted, and their owners waited for a verification mail that could not come.
// No control characters either (NUL cannot even be stored).
const emailAtom = "[\\p{L}\\p{M}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const emailLabel = '[\\p{L}\\p{M}\\p{N}](?:[\\p{L}\\p{M}\\p{N}-]{0,61}[\\p{L}\\p{M}\\p{N}])?';
const emailShape = new RegExp(`^${emailAtom}(?:\\.${emailAtom})*@(?:${emailLabel}\\.)+(?:\\p{L}{2,63}|xn--[a-z0-9-]{1,59})$`, 'u');

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
    else if (v.length > 254 || v.indexOf('@') > 64 || !emailShape.test(v)) ctx.addIssue({ code: 'custom', message: emailMessages.invalid });
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
/**
 * `sid`: the sign-in (refresh token family) the token was issued for; a token of a sign-in that was ended
 * (logout, a password reset, a stolen refresh token) is refused at once, not when it expires. Tokens issued
 * before it existed carry none.
 */
export const accessTokenClaims = z.object({ sub: z.string(), user: sessionUser, exp: z.number(), iat: z.number(), sid: z.string().optional() });
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

/**
 * The reset link's new password: the sign-up rules, and like a password change every unmet rule is its
 * own issue, so the 422 lists them (part 1 "Reset link": unmet rules listed; QA: only "Password does not
 * meet all requirements.").
 */
export const resetPassword = z
  .string({ error: passwordMessages.required })
  .max(128, 'Password cannot exceed 128 characters.')
  .superRefine((v, ctx) => {
    if (v === '') ctx.addIssue({ code: 'custom', message: passwordMessages.required });
    else for (const label of unmetPasswordRules(v, SIGNUP_PASSWORD_MIN)) ctx.addIssue({ code: 'custom', message: label });
  });

export const passwordResetBody = z.object({ email, new_password: resetPassword });
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

// ---------------------------------------------------------------------------------------------------
// Profile form (part 2 §5). Its messages differ from sign-up's (no full stop, no two-word rule), so
// they are their own set. The server answers with the first problem of a field; the form shows it live.

export const profileNameMessages = {
  required: 'Name is required',
  min: 'Name must be at least 3 characters',
  max: 'Name cannot exceed 20 characters',
  charset: 'Name can only contain letters, spaces, hyphens, and apostrophes',
  repeated: 'Name cannot contain repeated spaces, hyphens, or apostrophes',
  edgeSpace: 'Name cannot start or end with a space',
  numbersOrEmojis: 'Name cannot contain numbers or emojis',
} as const;

export const USERNAME_MIN = 2;
export const USERNAME_MAX = 15;
/** Never given to anybody: they read as staff or as a programming value. */
export const RESERVED_USERNAMES: readonly string[] = ['admin', 'support', 'null', 'undefined', 'root'];

export const usernameMessages = {
  min: 'Username must be at least 2 characters',
  max: 'Username cannot exceed 15 characters',
  charset: 'Username can only contain letters, numbers, underscores, or periods',
  consecutive: 'Username cannot contain consecutive special characters',
  edge: 'Username cannot start or end with a special character',
  lowercase: 'Username must be lowercase',
  reserved: 'This username is reserved',
  taken: 'This username is already taken. Please choose another one.',
} as const;

export const WEBSITE_MIN = 4;
export const WEBSITE_MAX = 20;
export const websiteMessages = {
  min: 'Website must be at least 4 characters',
  max: 'Website cannot exceed 20 characters',
  // Not a spec rule: spaces and control characters cannot be part of an address (and NUL cannot be stored).
  charset: 'Website cannot contain spaces or control characters',
} as const;

export const profileMessages = {
  nothingToUpdate: 'Nothing to update.',
  updated: 'Profile updated successfully!',
  failed: 'Failed to update profile.',
} as const;

/** Every unmet profile-name rule, most specific first. */
export function profileNameProblems(typed: string): string[] {
  // As `nameProblems`: checked in NFC, the form the name is stored in.
  const raw = typed.normalize('NFC');
  if (raw.trim() === '') return [profileNameMessages.required];
  const out: string[] = [];
  const numbersOrEmojis = /[\p{N}\p{Extended_Pictographic}]/u.test(raw);
  if (numbersOrEmojis) out.push(profileNameMessages.numbersOrEmojis);
  if (raw !== raw.trim()) out.push(profileNameMessages.edgeSpace);
  if (!/^[\p{L}\p{M} '-]*$/u.test(raw) && !numbersOrEmojis) out.push(profileNameMessages.charset);
  if (/[ '-]{2,}/.test(raw)) out.push(profileNameMessages.repeated);
  if (raw.trim().length < NAME_MIN) out.push(profileNameMessages.min);
  if (raw.length > NAME_MAX) out.push(profileNameMessages.max);
  return out;
}

/** Every unmet username rule ('' is no username: allowed). */
export function usernameProblems(raw: string): string[] {
  if (raw === '') return [];
  const out: string[] = [];
  if (raw.length < USERNAME_MIN) out.push(usernameMessages.min);
  if (raw.length > USERNAME_MAX) out.push(usernameMessages.max);
  if (!/^[A-Za-z0-9_.]*$/.test(raw)) out.push(usernameMessages.charset);
  if (/[_.]{2}/.test(raw)) out.push(usernameMessages.consecutive);
  if (/^[_.]|[_.]$/.test(raw)) out.push(usernameMessages.edge);
  if (/[A-Z]/.test(raw)) out.push(usernameMessages.lowercase);
  if (RESERVED_USERNAMES.includes(raw.toLowerCase())) out.push(usernameMessages.reserved);
  return out;
}

/** Every unmet website rule ('' is no website: allowed). */
export function websiteProblems(raw: string): string[] {
  if (raw === '') return [];
  const out: string[] = [];
  if (/[\s\p{Cc}]/u.test(raw)) out.push(websiteMessages.charset);
  if (raw.length < WEBSITE_MIN) out.push(websiteMessages.min);
  if (raw.length > WEBSITE_MAX) out.push(websiteMessages.max);
  return out;
}

const firstProblem = (problems: (v: string) => string[]) => (v: string, ctx: z.core.$RefinementCtx<string>) => {
  const [first] = problems(v);
  if (first) ctx.addIssue({ code: 'custom', message: first });
};

export const profileName = z.string({ error: profileNameMessages.required }).normalize('NFC').superRefine(firstProblem(profileNameProblems));
/** '' or null clears the username. */
export const profileUsername = z
  .string({ error: usernameMessages.charset })
  .nullable()
  .transform((v) => v ?? '')
  .superRefine(firstProblem(usernameProblems));
/** '' or null clears the website. Surrounding spaces are not part of an address. */
export const profileWebsite = z
  .string({ error: websiteMessages.charset })
  .nullable()
  .transform((v) => (v ?? '').trim())
  .superRefine(firstProblem(websiteProblems));

/** PATCH /users/update-profile: only the changed fields among name, username and website. */
export const updateProfileRequest = z
  .object({ name: profileName.optional(), username: profileUsername.optional(), website: profileWebsite.optional() })
  .refine((b) => b.name !== undefined || b.username !== undefined || b.website !== undefined, { message: profileMessages.nothingToUpdate });
export type UpdateProfileRequest = z.input<typeof updateProfileRequest>;

export const profileFields = ['name', 'username', 'website'] as const;
export type ProfileField = (typeof profileFields)[number];

// ---------------------------------------------------------------------------------------------------
// Profile images (part 2 §7, §8)

/** Longest side of avatar and cover after the browser's resize (part 2 §9), JPEG quality 0.7. */
export const PROFILE_IMAGE_MAX_SIDE = 600;
export const PROFILE_IMAGE_QUALITY = 0.7;
export const PROFILE_IMAGE_TIMEOUT_MS = 30_000;
/** A picture file larger than this is refused before the browser even decodes it. */
export const MAX_SOURCE_IMAGE_BYTES = 20 * 1024 * 1024;
/** What the server accepts after that resize (a 600 px JPEG is far smaller; this is a bound, not a target). */
export const MAX_PROFILE_IMAGE_BYTES = 2 * 1024 * 1024;
export const imageFor = z.enum(['avatar', 'cover'], { error: 'image_for must be avatar or cover.' });
export type ImageFor = z.infer<typeof imageFor>;

export const userImageMessages = {
  missing: 'An image is required.',
  sourceTooLarge: 'The file is too large (at most 20 MB).',
  tooLarge: 'The image is too large (at most 2 MB).',
  notAnImage: 'The file is not an image.',
  timeout: 'The upload took longer than 30 seconds.',
} as const;

/** "Failed to upload {avatar or cover} image: {reason}" (part 2 §8). */
export const imageUploadFailed = (kind: ImageFor, reason: string): string => `Failed to upload ${kind} image: ${reason}`;

/** POST /users/user-image: a base64 JPEG (a `data:` URL prefix is accepted). */
export const userImageRequest = z.object({
  image: z.string({ error: userImageMessages.missing }).min(1, userImageMessages.missing),
  image_for: imageFor,
});
export type UserImageRequest = z.infer<typeof userImageRequest>;
/** Both names are answered: the spec's console reads `image_url` or `url`. */
export const userImageResponse = z.object({ image_for: imageFor, image_url: z.string(), url: z.string() });
export type UserImageResponse = z.infer<typeof userImageResponse>;

// ---------------------------------------------------------------------------------------------------
// Contact (part 2 §5, §8)

export const CONTACT_SUBJECT_MAX = 200;
export const CONTACT_MESSAGE_MAX = 5000;
export const contactMessages = {
  required: 'Both Subject and Message fields are required.',
  subjectTooLong: 'Subject cannot exceed 200 characters.',
  messageTooLong: 'Message cannot exceed 5000 characters.',
  charset: 'Subject and Message cannot contain control characters.',
  success: 'Form submitted successfully!',
  failed: 'Unable to send message',
} as const;

// Tabs and line breaks are text; other control characters (NUL cannot even be stored) are not.
// eslint-disable-next-line no-control-regex -- the point of this pattern is to find control characters
const noControl = (v: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v);

export const contactUsRequest = z.object({
  subject: z
    .string({ error: contactMessages.required })
    .trim()
    .min(1, contactMessages.required)
    .max(CONTACT_SUBJECT_MAX, contactMessages.subjectTooLong)
    .refine(noControl, contactMessages.charset),
  message: z
    .string({ error: contactMessages.required })
    .trim()
    .min(1, contactMessages.required)
    .max(CONTACT_MESSAGE_MAX, contactMessages.messageTooLong)
    .refine(noControl, contactMessages.charset),
});
export type ContactUsRequest = z.input<typeof contactUsRequest>;

/** A stored contact message as support reads it (Admin > Messages). */
export const contactMessage = z.object({
  id: z.string(),
  user_uid: z.string(),
  user_email: z.string(),
  user_name: z.string(),
  subject: z.string(),
  message: z.string(),
  created_at: z.string(),
  /** Whether the copy to SUPPORT_EMAIL was queued (false when no support address is configured). */
  mailed: z.boolean(),
});
export type ContactMessage = z.infer<typeof contactMessage>;
export const contactMessageSummary = contactMessage.omit({ message: true }).extend({ preview: z.string() });
export type ContactMessageSummary = z.infer<typeof contactMessageSummary>;
export const contactMessageParams = z.object({ id: z.uuid({ error: 'Message not found.' }) });

/** A profile change as support reads it: who changed which field when, and the value before and after. */
export const profileChange = z.object({
  field: z.enum(profileFields).or(z.enum(['avatar', 'cover'])),
  old_value: z.string().nullable(),
  new_value: z.string().nullable(),
  changed_by: z.string(),
  changed_at: z.string(),
});
export type ProfileChange = z.infer<typeof profileChange>;

// ---------------------------------------------------------------------------------------------------
// Console configuration the browser needs before it draws trade rows (public, no secrets).

export const consoleConfig = z.object({
  /** URL template of ticker logos with `{ticker}` (e.g. https://logos.example/{ticker}.png); null: initials only. */
  ticker_logo_url: z.string().nullable(),
  /**
   * 'stripe': the 30-day trial and the paid plan apply; 'self-hosted' (no Stripe key): every user has
   * Premium without end and nothing is charged, so the sign-up and landing pages offer no trial.
   */
  billing: z.enum(['stripe', 'self-hosted']),
});
export type ConsoleConfig = z.infer<typeof consoleConfig>;
