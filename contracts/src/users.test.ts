import { describe, expect, it } from 'vitest';
import { changePasswordForm, nameMessages, nameProblems, passwordChecklist, signupForm, adminSearchForm } from './users.ts';

describe('name rules', () => {
  it('lists every unmet rule, most specific first', () => {
    expect(nameProblems('Al')).toEqual([nameMessages.twoWords, nameMessages.min]);
    expect(nameProblems('Jo 2')).toEqual([nameMessages.numbersOrEmojis, nameMessages.twoWords]);
    expect(nameProblems(' Jane  Smith')).toEqual([nameMessages.edgeSpace, nameMessages.repeated]);
    expect(nameProblems("Mary-Jane O'Neil")).toEqual([]);
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
