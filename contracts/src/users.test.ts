import { describe, expect, it } from 'vitest';
import { changePasswordForm, nameMessages, nameProblems, passwordChecklist, profileName, profileNameMessages, signupForm, adminSearchForm, email, fullName } from './users.ts';

describe('name rules', () => {
  it('lists every unmet rule, most specific first', () => {
    expect(nameProblems('Al')).toEqual([nameMessages.twoWords, nameMessages.min]);
    expect(nameProblems('Jo 2')).toEqual([nameMessages.numbersOrEmojis, nameMessages.twoWords]);
    expect(nameProblems(' Jane  Smith')).toEqual([nameMessages.edgeSpace, nameMessages.repeated]);
    expect(nameProblems("Mary-Jane O'Neil")).toEqual([]);
  });

  it('counts letters as a reader sees them and stores names in NFC (QA: "e" + a combining accent counted as two)', () => {
    // "éé" typed as e + U+0301 twice: two letters, under the 3 of the profile name.
    expect(profileName.safeParse('e\u0301e\u0301').error?.issues[0]?.message).toBe(profileNameMessages.min);
    expect(profileName.parse('Jose\u0301')).toBe('José');
    // The sign-up name: 20 letters at most, counted composed; stored composed.
    const twenty = `Ame\u0301lie ${'e\u0301'.repeat(13)}`;
    expect(nameProblems(twenty)).toEqual([]);
    expect(fullName.parse('Ame\u0301lie Dupont')).toBe('Amélie Dupont');
  });
});

describe('forms', () => {
  it('sign-up form checks the confirmation and the terms', () => {
    const base = { name: 'Jane Trader', email: 'Jane@Example.com', password: 'Abc12!', confirmPassword: 'Abc12!', termsAccepted: true };
    const ok = signupForm.safeParse(base);
    expect(ok.success && ok.data.email).toBe('jane@example.com');
    const mismatch = signupForm.safeParse({ ...base, confirmPassword: 'x' });
    expect(mismatch.error?.issues.map((i) => i.message)).toEqual(['Passwords do not match.']);
    const terms = signupForm.safeParse({ ...base, termsAccepted: false });
    expect(terms.error?.issues.map((i) => i.message)).toEqual(['You must accept the terms and conditions.']);
  });

  it('password change form lists rules, same-as-old and mismatch', () => {
    const r = changePasswordForm.safeParse({ oldPassword: 'Old1!xyz', newPassword: 'Old1!xyz', confirmPassword: 'different' });
    expect(r.error?.issues.map((i) => i.message)).toEqual(['Cannot use the same password', 'Passwords do not match']);
    const empty = changePasswordForm.safeParse({ oldPassword: '', newPassword: 'aaaaaaaa', confirmPassword: 'aaaaaaaa' });
    expect(empty.error?.issues.map((i) => i.message)).toEqual([
      'Old password is required',
      'At least one uppercase letter',
      'At least one number',
      'At least one special character (!@#$%^&*())',
    ]);
    expect(passwordChecklist('Abcdef1!', 8).every((r) => r.ok)).toBe(true);
  });

  it('admin search needs an e-mail', () => {
    expect(adminSearchForm.safeParse({ email: ' ' }).error?.issues[0]?.message).toBe('Email is required.');
  });
});

describe('e-mail shape (sign-up, reset, verification mail)', () => {
  it('takes addresses mail can reach, any script, and refuses those it cannot (QA)', () => {
    const takes = ['jane@example.com', 'jane.doe+tag@mail.example.co.uk', "o'brien@example.ie", 'josé@exämple.de', 'user@xn--bcher-kva.com', 'a_b-c@sub-domain.example.io', `${'x'.repeat(64)}@example.com`];
    const refuses = [
      'a@example..com',
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
      'a@-example.com',
      'a@example-.com',
      'a@[127.0.0.1]',
      '"q"@example.com',
      'a@example',
      'a@example.c',
      'a@example.123',
      'a b@example.com',
      'a@b@example.com',
      `${'x'.repeat(65)}@example.com`,
      `a@${'x'.repeat(64)}.com`,
    ];
    expect(takes.filter((e) => !email.safeParse(e).success)).toEqual([]);
    expect(refuses.filter((e) => email.safeParse(e).success)).toEqual([]);
    expect(email.safeParse('a..b@example.com').error?.issues[0]?.message).toBe('Invalid email format.');
  });
});
