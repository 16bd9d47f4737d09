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
