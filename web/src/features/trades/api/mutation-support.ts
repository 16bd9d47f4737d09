/** One key per submitted form: a retried request (double click, network retry) is applied once. */
export const newIdempotencyKey = (): string => crypto.randomUUID();
