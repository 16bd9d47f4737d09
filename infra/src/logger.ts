import { pino, type Logger } from 'pino';

/** Structured JSON logs. Fastify adds the request id to every line it logs for a request. */
export function createLogger(level: string, name = 'options-journal'): Logger {
  return pino({ name, level, redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.new_password', '*.old_password'], censor: '[redacted]' } });
}
