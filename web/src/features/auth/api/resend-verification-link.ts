import { useMutation } from '@tanstack/react-query';
import type { MessageResponse } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** GET /users/resend-verification-link/?email=: for a visitor whose link failed. Errors are ignored by the page. */
export function resendVerificationLink(email: string): Promise<MessageResponse> {
  return api.get<MessageResponse>('/users/resend-verification-link/', { auth: false, query: { email } });
}

export function useResendVerificationLink() {
  return useMutation({ mutationFn: resendVerificationLink });
}
