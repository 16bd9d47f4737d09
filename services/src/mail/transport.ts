import nodemailer from 'nodemailer';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MailMessage {
  /** Stable per outbox row, so a receiver can recognise the rare redelivery (see worker.ts). */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

export interface MailTransport {
  kind: 'smtp' | 'files';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

let fileSeq = 0;

/** SMTP when a URL is given (smtp:// or smtps://), else `.eml` files in `<dataDir>/mail/`. */
export function createMailTransport(options: { smtpUrl?: string | undefined; dataDir: string }): MailTransport {
  if (options.smtpUrl) {
    const transporter = nodemailer.createTransport(options.smtpUrl);
    return {
      kind: 'smtp',
      async send(m) {
        await transporter.sendMail({ messageId: m.messageId, from: m.from, to: m.to, subject: m.subject, text: m.text, ...(m.html ? { html: m.html } : {}) });
      },
      close: () => transporter.close(),
    };
  }
  const dir = join(options.dataDir, 'mail');
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'files',
    async send(m) {
      const info = await builder.sendMail({ messageId: m.messageId, from: m.from, to: m.to, subject: m.subject, text: m.text, ...(m.html ? { html: m.html } : {}) });
      await mkdir(dir, { recursive: true });
      // Names sort in delivery order (wall-clock ms, then a per-process counter), which tests and people
      // reading the directory rely on to find the newest mail.
      const id = m.messageId.replace(/^<|@.*$/g, '').replace(/[^a-zA-Z0-9-]/g, '');
      const file = join(dir, `${String(Date.now()).padStart(14, '0')}-${String(++fileSeq).padStart(6, '0')}-${id}.eml`);
      // Write then rename, so a reader polling the directory never sees half a message.
      await writeFile(`${file}.tmp`, info.message as Buffer);
      await rename(`${file}.tmp`, file);
    },
    close: () => builder.close(),
  };
}
