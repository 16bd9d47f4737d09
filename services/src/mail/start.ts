import type { AppDeps } from '../app/deps.ts';
import type { BackgroundWorker } from '../platform/runtime.ts';
import { createMailTransport } from './transport.ts';
import { MailWorker } from './worker.ts';

/** The outbox worker of a process: SMTP when SMTP_URL is set, `.eml` files under DATA_DIR/mail otherwise. */
export function startMailWorker(deps: AppDeps): BackgroundWorker {
  const logger = deps.logger.child({ worker: 'mail' });
  const transport = createMailTransport({ smtpUrl: deps.config.SMTP_URL, dataDir: deps.config.DATA_DIR, logger });
  const worker = new MailWorker({ db: deps.database.db, transport, clock: deps.clock, from: deps.config.MAIL_FROM, logger });
  worker.start();
  // Without SMTP_URL nothing is sent: the start-up log says once where the mails are instead.
  if (transport.dir) deps.logger.info({ transport: transport.kind, dir: transport.dir }, `mail outbox worker started: no SMTP_URL, mail is written as .eml files to ${transport.dir}`);
  else deps.logger.info({ transport: transport.kind }, 'mail outbox worker started');
  return { name: 'mail', stop: () => worker.stop() };
}
