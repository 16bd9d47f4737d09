import { useMutation } from '@tanstack/react-query';
import type { MessageResponse } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** GET /users/request-verification-link: a new link for the signed-in (unverified) user. */
export function requestVerificationLink(): Promise<MessageResponse> {
  return api.get<MessageResponse>('/users/request-verification-link');
}

export function useRequestVerificationLink() {
  return useMutation({ mutationFn: requestVerificationLink });
}
