import type { FastifyError, FastifyInstance } from 'fastify';
import { REQUEST_BODY_MESSAGES, errorBodyOf } from '@oj/contracts/common';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { WrongExpectedRevisionError } from '@oj/infra/eventstore/port';
import { isConnectionLost, isStorageFull } from '@oj/infra/db/errors';
import { AppError } from '../errors.ts';

/** How much of an unknown route's path its 404 repeats. */
const ROUTE_SHOWN = 120;

/**
 * The one place errors become HTTP answers. Bodies are `{message, detail, resolution?}` (`errorBodyOf`); a stack trace
 * never leaves the process. Request validation failures answer 422 with the first issue's message (the
 * spec's text, which the zod schemas in contracts/ carry) and every issue in `detail`.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.statusCode).send(error.toBody());
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const detail = error.validation.map((v) => {
        const path = String(v.instancePath ?? '').split('/').filter(Boolean);
        const message = v.message ?? 'Invalid value.';
        // The body as a whole is not an object (null, an array, a string, nothing): no field to name.
        const wholeBody = error.validationContext === 'body' && path.length === 0 && /^Invalid input: expected object, received /.test(message);
        return {
          field: [String(error.validationContext ?? ''), ...path].filter(Boolean).join('.'),
          message: wholeBody ? REQUEST_BODY_MESSAGES.notObject : readableIssue(path.join('.'), message),
        };
      });
      return reply.status(422).send(errorBodyOf(detail[0]?.message ?? 'Invalid request.', { detail }));
    }
    if (error instanceof WrongExpectedRevisionError) {
      return reply.status(409).send(errorBodyOf('The trade was changed by another request. Reload and try again.'));
    }
    if (isConnectionLost(error)) {
      // Not the request's fault and not a bug: the database was unreachable. Nothing was half-written
      // (one transaction per command); a retry with the same Idempotency-Key is safe.
      request.log.warn({ err: error }, 'database unreachable');
      return reply.status(503).header('retry-after', '1').send(errorBodyOf('The journal cannot reach its database right now. Please try again in a moment.'));
    }
    if (isStorageFull(error)) {
      // An operator must act (error level), and the trader is told plainly; the statement was rolled back.
      request.log.error({ err: error }, 'storage full');
      return reply.status(503).header('retry-after', '60').send(
        errorBodyOf('The journal cannot save right now: its disk is full. Nothing was changed. Please try again later.', {
          resolution: 'Operators: free disk space where the journal keeps its data (DATA_DIR, or the database server), then retry.',
        }),
      );
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return reply.status(500).send(errorBodyOf('Internal server error.'));
    }
    const fe = error as FastifyError;
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send(errorBodyOf('Internal server error.'));
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.status(415).send(errorBodyOf(REQUEST_BODY_MESSAGES.mediaType));
    // Fastify's own 4xx (malformed JSON, body too large, rate limit).
    return reply.status(status).send(errorBodyOf(fe.message));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBodyOf(routeNotFoundMessage(request.method, request.url)));
  });
}

/** The texts zod writes itself, where a schema gave no message of its own (the spec's texts are never these). */
const ZOD_DEFAULT = /^(Invalid input|Invalid option|Invalid key|Invalid element|Invalid string|Invalid number|Too big|Too small|Unrecognized key)/;
const MISSING = /^Invalid input: expected [^,]+, received undefined$/;

/**
 * A validation message a user can act on. zod's own texts do not say which field they are about (QA:
 * `{}` to update-default-account answered "Invalid input: expected string, received undefined"): a
 * missing field reads "old_default is required.", any other of zod's texts is prefixed with the field.
 * A schema's own message (the spec's text) is kept as it is.
 */
export function readableIssue(field: string, message: string): string {
  if (!field || !ZOD_DEFAULT.test(message)) return message;
  if (MISSING.test(message)) return `${field} is required.`;
  return `${field}: ${message}`;
}

/** "Route GET /api/v1/nope not found.", the path as sent, cut short: a 10,000-character path came back whole (QA). */
export function routeNotFoundMessage(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  return `Route ${method} ${path.length > ROUTE_SHOWN ? `${path.slice(0, ROUTE_SHOWN)}…` : path} not found.`;
}
