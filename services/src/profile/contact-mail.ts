import type { OutgoingMail } from '../mail/outbox.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface ContactMailInput {
  id: string;
  userId: string;
  email: string;
  name: string;
  subject: string;
  message: string;
}

/** The copy of a contact message for the support address: who sent it (id and e-mail) and what. */
export function contactMail(to: string, m: ContactMailInput): OutgoingMail {
  // A subject is one header line: line breaks the user typed must not reach it.
  const subject = `[Contact] ${m.subject.replace(/\s+/g, ' ')}`;
  const header = [`From user: ${m.name} <${m.email}>`, `User id: ${m.userId}`, `Message id: ${m.id}`, `Subject: ${m.subject}`];
  const text = [...header, '', m.message].join('\n');
  const html = `${header.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<hr><p style="white-space:pre-wrap">${escapeHtml(m.message)}</p>`;
  return { kind: 'contact', to, subject, text, html };
}
