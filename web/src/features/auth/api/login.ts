import { useMutation } from '@tanstack/react-query';
import type { LoginRequest, LoginResponse } from '@oj/contracts/users';
import { api } from '../../../lib/api-client.ts';
import { sessionStore } from '../session-store.ts';

/** POST /users/login: the user and an access token; the refresh token comes as an httpOnly cookie. */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return api.post<LoginResponse>('/users/login', body, { auth: false });
}

export function useLogin() {
  return useMutation({
    mutationFn: login,
    onSuccess: (res) => sessionStore.signIn(res.user, res.access_token),
  });
}
