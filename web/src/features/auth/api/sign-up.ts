import { useMutation } from '@tanstack/react-query';
import type { MessageResponse, SignupRequest } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** POST /users/signup: 201 with a message; the verification mail follows. */
export function signUp(body: SignupRequest): Promise<MessageResponse & { uid: string }> {
  return api.post('/users/signup', body, { auth: false });
}

export function useSignUp() {
  return useMutation({ mutationFn: signUp });
}
