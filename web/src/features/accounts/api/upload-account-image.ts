import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client.ts';
import { accountsQueryKey } from './get-accounts.ts';

/** POST /accounts/account-image/{uid}: a base64 JPEG (already resized to 1200 px), answers the image URL. */
export function uploadAccountImage({ uid, image }: { uid: string; image: string }): Promise<{ url: string }> {
  return api.post<{ url: string }>(`/accounts/account-image/${encodeURIComponent(uid)}`, { image, image_for: 'account' }, { timeoutMs: 30_000 });
}

export function useUploadAccountImage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: uploadAccountImage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsQueryKey }),
  });
}
