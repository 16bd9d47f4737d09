import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CurrentUser, UpdateProfileRequest } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';
import { sessionStore } from '@/features/auth/session-store.ts';
import { currentUserQueryKey } from './get-current-user.ts';

/** PATCH /users/update-profile with only the changed fields; answers the whole profile. */
export function updateProfile(body: UpdateProfileRequest): Promise<CurrentUser> {
  return api.patch<CurrentUser>('/users/update-profile', body);
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (user) => {
      queryClient.setQueryData(currentUserQueryKey, user);
      // The top bar and sidebar greet by the session's name; it would otherwise wait for the next token.
      sessionStore.updateUser({ name: user.name });
    },
  });
}
