import { useMutation } from '@tanstack/react-query';
import type { LoginRequest, LoginResponse } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** POST /users/login: the user and an access token; the refresh token comes as an httpOnly cookie. */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return api.post<LoginResponse>('/users/login', body, { auth: false });
}

/** The page stores the session itself (after remembering the e-mail), so the guard's redirect comes last. */
export function useLogin() {
  return useMutation({ mutationFn: login });
}
