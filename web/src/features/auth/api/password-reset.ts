import { useMutation } from '@tanstack/react-query';
import type { MessageResponse, PasswordResetBody } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** POST /users/password-reset/{token}: errors carry message and resolution. */
export function passwordReset({ token, ...body }: PasswordResetBody & { token: string }): Promise<MessageResponse> {
  return api.post<MessageResponse>(`/users/password-reset/${encodeURIComponent(token)}`, body, { auth: false });
}

export function usePasswordReset() {
  return useMutation({ mutationFn: passwordReset });
}
