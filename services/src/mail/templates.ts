import type { OutgoingMail } from './outbox.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function mail(kind: string, to: string, subject: string, greeting: string, lines: string[], link: string, button: string): OutgoingMail {
  const text = [`${greeting}`, '', ...lines, '', link, '', 'Options Journal'].join('\n');
  const html = `<p>${escapeHtml(greeting)}</p>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(link)}">${escapeHtml(button)}</a></p><p>${escapeHtml(link)}</p><p>Options Journal</p>`;
  return { kind, to, subject, text, html };
}

/** Links go to the console's routes on PUBLIC_URL, which call the API. */
export function verificationMail(publicUrl: string, to: string, name: string, token: string): OutgoingMail {
  const link = `${publicUrl}/users/account-verify?token=${encodeURIComponent(token)}`;
  return mail('verify', to, 'Verify your Options Journal account', `Hello ${name},`, ['Please confirm your e-mail address to activate your account. The link is valid for 24 hours.'], link, 'Verify my account');
}

export function passwordResetMail(publicUrl: string, to: string, name: string, token: string): OutgoingMail {
  const link = `${publicUrl}/users/password-reset-link?token=${encodeURIComponent(token)}&email=${encodeURIComponent(to)}`;
  return mail(
    'password-reset',
    to,
    'Reset your Options Journal password',
    `Hello ${name},`,
    ['Someone asked to reset the password of your account. The link is valid for 1 hour and works once. If it was not you, ignore this e-mail.'],
    link,
    'Reset my password',
  );
}

/** Sign-up with an address that already has an account: its owner is told, the form is not (commands.ts `signUp`). */
export function accountExistsMail(publicUrl: string, to: string, name: string): OutgoingMail {
  return mail(
    'account-exists',
    to,
    'You already have an Options Journal account',
    `Hello ${name},`,
    [
      'Someone, perhaps you, tried to create an Options Journal account with this e-mail address, which already has one. No new account was made.',
      'Sign in with it; if you forgot your password, choose "Forgot password" on the sign-in page. If it was not you, ignore this e-mail: your account is unchanged.',
    ],
    `${publicUrl}/signin`,
    'Sign in',
  );
}
