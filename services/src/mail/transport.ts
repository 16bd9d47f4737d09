import nodemailer from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

export interface MailMessage {
  /** Stable per outbox row, so a receiver can recognise the rare redelivery (see worker.ts). */
  messageId: string;
  from: string;
  to: string;
  replyTo?: string | null;
  subject: string;
  text: string;
  html?: string | null;
}

/** nodemailer's message of ours (the same for SMTP and files). */
const nodemailerMessage = (m: MailMessage) => ({
  messageId: m.messageId,
  from: m.from,
  to: m.to,
  ...(m.replyTo ? { replyTo: m.replyTo } : {}),
  subject: m.subject,
  text: m.text,
  ...(m.html ? { html: m.html } : {}),
});

export interface MailTransport {
  kind: 'smtp' | 'files';
  /** Files only: the directory the `.eml` files are written to. */
  dir?: string;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

let fileSeq = 0;

/**
 * How long an SMTP connection may wait for the server (connect, greeting, each reply) before the send
 * fails. Well below the worker's claim lease (60 s): nodemailer's own defaults (minutes) would let a
 * stalled server hold a send past its lease, and another worker would then send the same mail again.
 */
export const SMTP_TIMEOUT_MS = 15_000;

/**
 * SMTP when a URL is given (smtp:// or smtps://), else `.eml` files in `<dataDir>/mail/`; each file
 * written is logged with its path and subject, the only way a user of the embedded default learns where
 * a verification or reset mail went.
 */
export function createMailTransport(options: { smtpUrl?: string | undefined; dataDir: string; timeoutMs?: number; logger?: Logger | undefined }): MailTransport {
  if (options.smtpUrl) {
    const timeout = options.timeoutMs ?? SMTP_TIMEOUT_MS;
    // Through SMTPTransport: nodemailer.createTransport({url, ...}) would drop every option but the URL.
    const transporter = nodemailer.createTransport(new SMTPTransport({ url: options.smtpUrl, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout }));
    return {
      kind: 'smtp',
      async send(m) {
        await transporter.sendMail(nodemailerMessage(m));
      },
      close: () => transporter.close(),
    };
  }
  const dir = join(options.dataDir, 'mail');
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'files',
    dir,
    async send(m) {
      const info = await builder.sendMail(nodemailerMessage(m));
      await mkdir(dir, { recursive: true });
      // Names sort in delivery order (wall-clock ms, then a per-process counter), which tests and people
      // reading the directory rely on to find the newest mail.
      const id = m.messageId.replace(/^<|@.*$/g, '').replace(/[^a-zA-Z0-9-]/g, '');
      const file = join(dir, `${String(Date.now()).padStart(14, '0')}-${String(++fileSeq).padStart(6, '0')}-${id}.eml`);
      // Write then rename, so a reader polling the directory never sees half a message.
      await writeFile(`${file}.tmp`, info.message as Buffer);
      await rename(`${file}.tmp`, file);
      options.logger?.info({ file, subject: m.subject }, `mail written to ${file}: ${m.subject}`);
    },
    close: () => builder.close(),
  };
}
