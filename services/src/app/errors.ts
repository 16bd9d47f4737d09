import { errorBodyOf, type ErrorBody } from '@oj/contracts/common';

/**
 * Errors the application raises on purpose. Domain code throws these with the spec's message; the
 * one error handler (plugins/error-handler.ts) maps `kind` to an HTTP status and the body
 * `{message, detail, resolution?}`. Anything else becomes a 500 with a generic message and is logged.
 */
export type AppErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'gone' // 410
  | 'payload_too_large' // 413
  | 'unsupported_media' // 415
  | 'invalid' // 422
  | 'too_many_requests' // 429
  | 'unavailable'; // 503

export const statusOfKind: Record<AppErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media: 415,
  invalid: 422,
  too_many_requests: 429,
  unavailable: 503,
};

export class AppError extends Error {
  readonly kind: AppErrorKind;
  readonly detail: unknown;
  readonly resolution: string | undefined;
  constructor(kind: AppErrorKind, message: string, options: { detail?: unknown; resolution?: string } = {}) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.detail = options.detail;
    this.resolution = options.resolution;
  }
  get statusCode(): number {
    return statusOfKind[this.kind];
  }
  toBody(): ErrorBody {
    return errorBodyOf(this.message, { detail: this.detail, resolution: this.resolution });
  }
}

/** One field's validation failure, as listed in `detail` of a 422. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** A 422 whose message is the first issue's (the spec's text) and whose detail lists them all. */
export function invalid(issues: FieldIssue[]): AppError {
  return new AppError('invalid', issues[0]?.message ?? 'Invalid request.', { detail: issues });
}
