import { useMutation } from '@tanstack/react-query';
import type { MessageResponse, UpdatePasswordRequest } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** PATCH /users/update-password: 400 for a wrong old password, 422 listing every unmet rule. */
export function updatePassword(body: UpdatePasswordRequest): Promise<MessageResponse> {
  return api.patch<MessageResponse>('/users/update-password', body);
}

export function useUpdatePassword() {
  return useMutation({ mutationFn: updatePassword });
}
