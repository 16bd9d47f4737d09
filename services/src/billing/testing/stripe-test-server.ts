import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import Stripe from 'stripe';

/**
 * A local Stripe for tests: the real `stripe` SDK talks to it over HTTP (its `host`, `port`, `protocol`
 * options, here through STRIPE_API_URL), and it answers with Stripe's own fixture objects
 * (`fixtures3.json` of stripe/openapi, MIT licence, in ../shared/vendor/stripe-openapi beside the repo)
 * adjusted to the request: the ids, customers, cards, periods and statuses the requests imply. It keeps
 * the state a test needs (customers, cards, setup intents, subscriptions, invoices), honours idempotency
 * keys like Stripe (same key and same parameters: the first answer again; other parameters: an error),
 * and builds the webhook events Stripe would send, signed with `stripe.webhooks.generateTestHeaderString`.
 *
 * Card numbers never exist here: a test card is named by its payment method id, as with Stripe's test
 * tokens. `pm_card_visa` saves a good card; one whose id contains `declined` saves a card every charge of
 * which fails, like Stripe's 4000 0000 0000 0341.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const fixturesPath = join(repoRoot, '..', 'shared', 'vendor', 'stripe-openapi', 'fixtures3.json');

type Json = Record<string, any>;
let fixtures: Record<string, Json> | null = null;
function fixture(name: string): Json {
  fixtures ??= (JSON.parse(readFileSync(fixturesPath, 'utf8')) as { resources: Record<string, Json> }).resources;
  const f = fixtures[name];
  if (!f) throw new Error(`no Stripe fixture ${name}`);
  return structuredClone(f);
}

export const PRICE_ID = 'price_premium_monthly';
export const PRICE_CENTS = 499;
const MONTH_S = 30 * 86_400;

/** Stripe's form encoding (`a[b][0]=c`) back to an object. */
function parseForm(body: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = out;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      const k = part === '' ? String(Object.keys(node).length) : part;
      if (last) node[k] = value;
      else node = node[k] ??= nextIsIndex ? {} : {};
    });
  }
  return out;
}
const listOf = (v: unknown): string[] => (v == null ? [] : typeof v === 'object' ? Object.values(v as Json).map(String) : [String(v)]);

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  params: Json;
}

export class StripeTestServer {
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<string, Json>();
  readonly paymentMethods = new Map<string, Json>();
  readonly setupIntents = new Map<string, Json>();
  readonly subscriptions = new Map<string, Json>();
  readonly invoices = new Map<string, Json>();
  /** Stripe's clock for the objects it makes (seconds); tests move it with their own clock. */
  now = Math.floor(Date.now() / 1000);
  /** Cards whose bank declined them once and approves them now (`approve`). */
  readonly #approved = new Set<string>();
  #server: Server | null = null;
  #idempotent = new Map<string, { params: string; status: number; body: string }>();
  #seq = 0;
  #eventSeq = 0;
  #stripe = new Stripe('sk_test_signing_only');
  url = '';

  async start(): Promise<string> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  #id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}_test${String(this.#seq).padStart(6, '0')}`;
  }

  // ---- test-side helpers: what Stripe.js and Stripe's own schedule do --------------------------------

  /** A saved card, like Stripe.js creates when the user types one. */
  createPaymentMethod(options: { id?: string; customer?: string | null; declined?: boolean; expMonth?: number; expYear?: number; last4?: string } = {}): Json {
    const pm = fixture('payment_method');
    pm.id = options.id ?? this.#id(options.declined ? 'pm_declined' : 'pm');
    pm.customer = options.customer ?? null;
    pm.created = this.now;
    pm.metadata = {};
    pm.card.exp_month = options.expMonth ?? 8;
    pm.card.exp_year = options.expYear ?? 2030;
    pm.card.last4 = options.last4 ?? (options.declined ? '0341' : '4242');
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  /** What `stripe.confirmCardSetup` does in the browser: a card saved through the SetupIntent. */
  confirmSetupIntent(setupIntentIdOrSecret: string, card: { declined?: boolean; expMonth?: number; expYear?: number; last4?: string } = {}): Json {
    const id = setupIntentIdOrSecret.split('_secret_')[0]!;
    const intent = this.setupIntents.get(id);
    if (!intent) throw new Error(`no SetupIntent ${id}`);
    const pm = this.createPaymentMethod({ customer: intent.customer, ...card });
    Object.assign(intent, { status: 'succeeded', payment_method: pm.id, last_setup_error: null, next_action: null });
    return intent;
  }

  /** The bank approves a card it declined before (the trader called it): the next charge goes through. */
  approve(paymentMethodId: string): void {
    this.#approved.add(paymentMethodId);
  }

  #declines(pm: Json | undefined): boolean {
    return !pm || (pm.id.includes('declined') && !this.#approved.has(pm.id));
  }

  /** Stripe's renewal at the period end: the next invoice, paid (or failed with a declined card). */
  renew(subscriptionId: string): { invoice: Json; paid: boolean } {
    const sub = this.subscriptions.get(subscriptionId)!;
    const item = sub.items.data[0];
    const start = item.current_period_end as number;
    const pm = this.paymentMethods.get(sub.default_payment_method);
    const paid = pm === undefined || !this.#declines(pm);
    const invoice = this.#invoice(sub, start, start + MONTH_S, PRICE_CENTS, paid ? 'paid' : 'open', 'subscription_cycle');
    sub.latest_invoice = invoice.id;
    if (paid) {
      item.current_period_start = start;
      item.current_period_end = start + MONTH_S;
      sub.status = 'active';
      sub.trial_end = sub.trial_end ?? null;
    } else {
      sub.status = 'past_due';
      invoice.attempt_count = 1;
      invoice.attempted = true;
    }
    return { invoice, paid };
  }

  /** A webhook event as Stripe sends it, with its signature header. */
  event(type: string, object: Json, options: { created?: number; id?: string } = {}): { id: string; payload: string; signature: (secret: string) => string; created: number } {
    this.#eventSeq += 1;
    const evt = fixture('event');
    evt.id = options.id ?? `evt_test${String(this.#eventSeq).padStart(6, '0')}`;
    evt.type = type;
    evt.created = options.created ?? this.now + this.#eventSeq;
    evt.api_version = '2025-08-27.basil';
    evt.data = { object: structuredClone(object) };
    const payload = JSON.stringify(evt);
    return { id: evt.id, payload, created: evt.created, signature: (secret) => this.#stripe.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  // ---- the HTTP API ---------------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    const raw = Buffer.concat(chunks).toString('utf8');
    const params = req.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(raw);
    const key = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, idempotencyKey: key, params });
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${this.#seq}`, ...(key ? { 'idempotency-key': key } : {}) });
      res.end(body);
    };
    if (key && req.method === 'POST') {
      const previous = this.#idempotent.get(key);
      const fingerprint = `${url.pathname} ${JSON.stringify(params)}`;
      if (previous && previous.params !== fingerprint) {
        return send(400, JSON.stringify({ error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` } }));
      }
      if (previous) return send(previous.status, previous.body);
      const [status, body] = this.#route(req.method, url.pathname, params);
      const text = JSON.stringify(body);
      this.#idempotent.set(key, { params: fingerprint, status, body: text });
      return send(status, text);
    }
    const [status, body] = this.#route(req.method ?? 'GET', url.pathname, params);
    send(status, JSON.stringify(body));
  }

  #missing(kind: string, id: string): [number, Json] {
    return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, param: 'id' } }];
  }
  #declined(): [number, Json] {
    return [402, { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } }];
  }

  #route(method: string, path: string, p: Json): [number, Json] {
    const parts = path.split('/').filter(Boolean); // ['v1', resource, id?, action?]
    const [, resource, id, action] = parts;
    if (method === 'POST' && resource === 'customers' && !id) {
      const c = fixture('customer');
      Object.assign(c, { id: this.#id('cus'), email: p.email ?? null, metadata: p.metadata ?? {}, created: this.now, invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null } });
      this.customers.set(c.id, c);
      return [200, c];
    }
    if (method === 'POST' && resource === 'customers' && id) {
      const c = this.customers.get(id);
      if (!c) return this.#missing('customer', id);
      if (p.invoice_settings?.default_payment_method) c.invoice_settings.default_payment_method = p.invoice_settings.default_payment_method;
      return [200, c];
    }
    if (method === 'POST' && resource === 'setup_intents' && !id) {
      const s = fixture('setup_intent');
      const sid = this.#id('seti');
      Object.assign(s, { id: sid, client_secret: `${sid}_secret_${this.#seq}`, customer: p.customer ?? null, metadata: p.metadata ?? {}, usage: p.usage ?? 'off_session', status: 'requires_payment_method', last_setup_error: null, next_action: null, created: this.now });
      s.payment_method_types = listOf(p.payment_method_types);
      this.setupIntents.set(sid, s);
      return [200, s];
    }
    if (method === 'GET' && resource === 'payment_methods' && id) {
      const pm = this.paymentMethods.get(id);
      return pm ? [200, pm] : this.#missing('payment_method', id);
    }
    if (method === 'POST' && resource === 'payment_methods' && id && action === 'attach') {
      const pm = this.paymentMethods.get(id);
      if (!pm) return this.#missing('payment_method', id);
      if (pm.customer && pm.customer !== p.customer) return [400, { error: { type: 'invalid_request_error', message: 'The payment method is attached to another customer.' } }];
      pm.customer = p.customer;
      return [200, pm];
    }
    if (method === 'GET' && resource === 'subscriptions' && id && !action) {
      const sub = this.subscriptions.get(id);
      return sub ? [200, sub] : this.#missing('subscription', id);
    }
    if (method === 'POST' && resource === 'subscriptions' && !id) return this.#createSubscription(p);
    if (method === 'POST' && resource === 'subscriptions' && id) {
      const sub = this.subscriptions.get(id);
      if (!sub) return this.#missing('subscription', id);
      if (p.cancel_at_period_end !== undefined) sub.cancel_at_period_end = p.cancel_at_period_end === 'true';
      if (p.default_payment_method) sub.default_payment_method = p.default_payment_method;
      return [200, sub];
    }
    if (method === 'DELETE' && resource === 'subscriptions' && id) {
      const sub = this.subscriptions.get(id);
      if (!sub) return this.#missing('subscription', id);
      Object.assign(sub, { status: 'canceled', ended_at: this.now, canceled_at: this.now });
      return [200, sub];
    }
    if (method === 'GET' && resource === 'invoices' && !id) {
      const data = [...this.invoices.values()].filter((i) => (!p.subscription || i.parent.subscription_details.subscription === p.subscription) && (!p.status || i.status === p.status)).reverse();
      return [200, { object: 'list', url: '/v1/invoices', has_more: false, data: data.slice(0, Number(p.limit ?? 10)) }];
    }
    if (method === 'POST' && resource === 'invoices' && id && action === 'pay') {
      const invoice = this.invoices.get(id);
      if (!invoice) return this.#missing('invoice', id);
      const pm = this.paymentMethods.get(p.payment_method ?? '');
      if (this.#declines(pm)) return this.#declined();
      Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due, amount_remaining: 0 });
      const sub = this.subscriptions.get(invoice.parent.subscription_details.subscription);
      if (sub) {
        sub.status = 'active';
        sub.items.data[0].current_period_start = invoice.period_start;
        sub.items.data[0].current_period_end = invoice.period_end;
      }
      return [200, invoice];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } }];
  }

  #createSubscription(p: Json): [number, Json] {
    const customer = this.customers.get(p.customer);
    if (!customer) return this.#missing('customer', p.customer);
    const pmId = p.default_payment_method ?? customer.invoice_settings.default_payment_method;
    const pm = this.paymentMethods.get(pmId);
    const price = p.items?.['0']?.price;
    if (price !== PRICE_ID) return [400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such price: '${price}'` } }];
    const trialEnd = p.trial_end ? Number(p.trial_end) : null;
    if (!trialEnd && this.#declines(pm)) return this.#declined();
    const sub = fixture('subscription');
    const subId = this.#id('sub');
    const start = this.now;
    const end = trialEnd ?? start + MONTH_S;
    Object.assign(sub, {
      id: subId,
      customer: customer.id,
      status: trialEnd ? 'trialing' : 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      created: start,
      start_date: start,
      billing_cycle_anchor: end,
      trial_start: trialEnd ? start : null,
      trial_end: trialEnd,
      default_payment_method: pmId ?? null,
      metadata: p.metadata ?? {},
      pending_update: null,
    });
    const item = sub.items.data[0];
    Object.assign(item, { id: this.#id('si'), subscription: subId, current_period_start: start, current_period_end: end });
    item.price.id = PRICE_ID;
    item.price.unit_amount = PRICE_CENTS;
    item.price.unit_amount_decimal = String(PRICE_CENTS);
    sub.items.data = [item];
    const invoice = this.#invoice(sub, start, end, trialEnd ? 0 : PRICE_CENTS, 'paid', 'subscription_create');
    sub.latest_invoice = invoice.id;
    this.subscriptions.set(subId, sub);
    return [200, sub];
  }

  #invoice(sub: Json, start: number, end: number, cents: number, status: 'paid' | 'open', reason: string): Json {
    const inv = fixture('invoice');
    const id = this.#id('in');
    const line = inv.lines.data[0];
    Object.assign(line, { id: this.#id('il'), invoice: id, amount: cents, period: { start, end }, subscription: null });
    line.parent = { type: 'subscription_item_details', invoice_item_details: null, subscription_item_details: { invoice_item: null, proration: false, proration_details: { credited_items: null }, subscription: sub.id, subscription_item: sub.items.data[0].id } };
    inv.lines.data = [line];
    Object.assign(inv, {
      id,
      customer: sub.customer,
      status,
      billing_reason: reason,
      amount_due: cents,
      amount_paid: status === 'paid' ? cents : 0,
      amount_remaining: status === 'paid' ? 0 : cents,
      period_start: start,
      period_end: start,
      created: this.now,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: {}, subscription: sub.id } },
    });
    this.invoices.set(id, inv);
    return inv;
  }
}
