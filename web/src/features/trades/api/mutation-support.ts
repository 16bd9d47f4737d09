import type { QueryClient } from '@tanstack/react-query';
import { ApiError } from '@/lib/api-client.ts';
import { tradeKeys } from './trade-keys.ts';

/** A fresh key: a request the server has not seen. */
const newIdempotencyKey = (): string => crypto.randomUUID();

/** Requests sent whose outcome is unknown (no answer, or a 5xx), by command and contents: their key. */
const unanswered = new Map<string, string>();

/** An answer that says what happened: a success, or a refusal (4xx). No answer (status 0) or a 5xx does not. */
const answered = (error: unknown) => error instanceof ApiError && error.status >= 400 && error.status < 500;

/**
 * Sends a journal command with an Idempotency-Key, so a retried request is applied once. The key belongs
 * to the request's command and contents until the request has an answer: sending the same contents
 * again after a lost answer (the network dropped it, a 502, a timeout) reuses it, and the server answers
 * with the first outcome instead of recording the trade twice. Once answered (a success or a refusal) the
 * key is spent, so the next submission of the same contents (a second identical trade on purpose) is a
 * new request; contents changed after a failure are a new request too.
 */
export async function sendOnce<T>(command: string, contents: unknown, send: (idempotencyKey: string) => Promise<T>): Promise<T> {
  const request = `${command}\n${JSON.stringify(contents)}`;
  const key = unanswered.get(request) ?? newIdempotencyKey();
  unanswered.set(request, key);
  try {
    const result = await send(key);
    unanswered.delete(request);
    return result;
  } catch (error) {
    if (answered(error)) unanswered.delete(request);
    throw error;
  }
}

/** When the lists are read a second time after a refusal (see refreshListsAfterRefusal). */
export const REREAD_AFTER_REFUSAL_MS = 1_500;

/**
 * A command refused for what the trade is now (changed, closed, split or deleted on another tab or
 * device since this one listed it: 404, 409, 422) leaves this tab's lists stale: they are read again, so
 * the row shows the trade as it is, or leaves (QA: after "This trade is already closed." the phone kept
 * listing it open until Refresh). A lost answer (no status, 5xx) says nothing of the trade: nothing to do.
 * The gateway answers a refusal once the read models show what it was decided on when its projector runs
 * beside it (`npm start`); where the projectors run in their own processes it cannot wait, so the lists
 * are read once more a moment later, past the projectors' usual lag.
 */
export function refreshListsAfterRefusal(queryClient: QueryClient, error: unknown): void {
  if (!answered(error)) return;
  const reread = () => void queryClient.invalidateQueries({ queryKey: tradeKeys.lists() });
  reread();
  setTimeout(reread, REREAD_AFTER_REFUSAL_MS);
}
