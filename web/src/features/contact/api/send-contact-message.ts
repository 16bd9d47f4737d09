import { useMutation } from '@tanstack/react-query';
import type { ContactUsRequest } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** POST /users/contact-us: stored for support and mailed to the support address. */
export function sendContactMessage(body: ContactUsRequest): Promise<{ message: string; id: string }> {
  return api.post<{ message: string; id: string }>('/users/contact-us', body);
}

export function useSendContactMessage() {
  return useMutation({ mutationFn: sendContactMessage });
}
