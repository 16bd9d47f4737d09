import { useMutation } from '@tanstack/react-query';
import type { MessageResponse, PasswordResetRequest } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** POST /users/password-reset-request: answers the same whether or not the e-mail exists. */
export function passwordResetRequest(body: PasswordResetRequest): Promise<MessageResponse> {
  return api.post<MessageResponse>('/users/password-reset-request', body, { auth: false });
}

export function usePasswordResetRequest() {
  return useMutation({ mutationFn: passwordResetRequest });
}
