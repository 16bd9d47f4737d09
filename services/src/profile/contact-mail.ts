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

/**
 * The copy of a contact message for the support address: who sent it (id and e-mail) and what. A reply
 * goes to the user (Reply-To), as the page promises "we answer by e-mail".
 */
export function contactMail(to: string, m: ContactMailInput): OutgoingMail {
  // The subject is one line, in the header and in the body's header lines alike: line breaks the user
  // typed must reach neither (QA: a typed "Bcc: …" line stood in the body as if it were a header).
  const oneLine = m.subject.replace(/\s+/g, ' ').trim();
  const subject = `[Contact] ${oneLine}`;
  const header = [`From user: ${m.name} <${m.email}>`, `User id: ${m.userId}`, `Message id: ${m.id}`, `Subject: ${oneLine}`];
  const text = [...header, '', m.message].join('\n');
  const html = `${header.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<hr><p style="white-space:pre-wrap">${escapeHtml(m.message)}</p>`;
  return { kind: 'contact', to, replyTo: m.email, subject, text, html };
}
