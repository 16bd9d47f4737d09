import type { AppDeps } from '../app/deps.ts';
import type { BackgroundWorker } from '../platform/runtime.ts';
import { createMailTransport } from './transport.ts';
import { MailWorker } from './worker.ts';

/** The outbox worker of a process: SMTP when SMTP_URL is set, `.eml` files under DATA_DIR/mail otherwise. */
export function startMailWorker(deps: AppDeps): BackgroundWorker {
  const transport = createMailTransport({ smtpUrl: deps.config.SMTP_URL, dataDir: deps.config.DATA_DIR });
  const worker = new MailWorker({ db: deps.database.db, transport, clock: deps.clock, from: deps.config.MAIL_FROM, logger: deps.logger.child({ worker: 'mail' }) });
  worker.start();
  deps.logger.info({ transport: transport.kind }, 'mail outbox worker started');
  return { name: 'mail', stop: () => worker.stop() };
}
