import { DAY_MS } from '@oj/contracts/business-date';
import type { OutgoingMail } from '../mail/outbox.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const longDate = (d: Date) => d.toLocaleDateString('en-US', { month: 'long', day: '2-digit', year: 'numeric', timeZone: 'America/New_York' });

function mail(kind: string, to: string, subject: string, name: string, lines: string[], link: string): OutgoingMail {
  const text = [`Hello ${name},`, '', ...lines, '', link, '', 'Options Journal'].join('\n');
  const html = `<p>Hello ${escapeHtml(name)},</p>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(link)}">Manage your subscription</a></p><p>Options Journal</p>`;
  return { kind, to, subject, text, html };
}

/**
 * The subject says the days left when the mail is written: 7 when the scheduler sends it on time, fewer
 * when it goes later (the server was down at the mark, or a trial had less than a week left when it was
 * started); never "7 days" for a trial that ends in 5 (QA).
 */
export function trialEndingSubject(trialEnd: Date, now: Date): string {
  const days = Math.max(1, Math.ceil((trialEnd.getTime() - now.getTime()) / DAY_MS));
  return days === 1 ? 'Your trial ends tomorrow' : `Your trial ends in ${days} days`;
}

/** Part 2 §1: one week before the trial ends. */
export function trialEndingMail(publicUrl: string, to: string, name: string, trialEnd: Date, willCharge: boolean, now: Date): OutgoingMail {
  return mail(
    'trial-ending',
    to,
    trialEndingSubject(trialEnd, now),
    name,
    willCharge
      ? [`Your free trial of Options Journal Premium ends on ${longDate(trialEnd)}.`, 'Your card on file will then be charged 4.99 USD a month. You can cancel any time on the Subscription page.']
      : [`Your free trial of Options Journal Premium ends on ${longDate(trialEnd)}.`, 'Subscribe (4.99 USD a month) to keep your dashboard, calendar and trade lists. Your journal is kept either way.'],
    `${publicUrl}/subscription`,
  );
}

/**
 * Part 2 §1: one month before the card on file expires, so in the month before its expiry month; a card
 * first seen in its expiry month (saved or reactivated then) is told at once that it expires this month.
 * The brand reads as on the Subscription page (VISA, not Stripe's `visa`).
 */
export function cardExpiringMail(publicUrl: string, to: string, name: string, card: { brand: string; last4: string; expMonth: number; expYear: number }, when: 'this month' | 'next month'): OutgoingMail {
  const month = `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;
  return mail(
    'card-expiring',
    to,
    `Your card expires ${when}`,
    name,
    [`The ${card.brand.toUpperCase()} card ending in ${card.last4} that pays for your Premium plan expires at the end of ${month}.`, 'Update your payment method on the Subscription page so your plan renews without a break.'],
    `${publicUrl}/subscription`,
  );
}
