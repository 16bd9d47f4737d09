import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  MAX_SOURCE_IMAGE_BYTES,
  PROFILE_IMAGE_MAX_SIDE,
  PROFILE_IMAGE_QUALITY,
  PROFILE_IMAGE_TIMEOUT_MS,
  userImageMessages,
  type CurrentUser,
  type ImageFor,
  type UserImageResponse,
} from '@oj/contracts/users';
import { api, ApiError } from '@/lib/api-client.ts';
import { NotAnImageError, resizeImage } from '@/lib/resize-image.ts';
import { sessionStore } from '@/features/auth/session-store.ts';
import { currentUserQueryKey } from './get-current-user.ts';

/** Why an upload failed, in words for "Failed to upload {avatar or cover} image: {reason}". */
export class UploadFailed extends Error {}

/**
 * Resizes the picture here (600 px, JPEG 0.7, part 2 §9) and posts it as base64 with a 30 s limit.
 * Files that are not pictures or are huge are refused before anything is sent.
 */
export async function uploadUserImage(file: File, imageFor: ImageFor): Promise<UserImageResponse> {
  if (file.size > MAX_SOURCE_IMAGE_BYTES) throw new UploadFailed(userImageMessages.sourceTooLarge);
  let image: string;
  try {
    image = await resizeImage(file, PROFILE_IMAGE_MAX_SIDE, PROFILE_IMAGE_QUALITY);
  } catch (error) {
    throw new UploadFailed(error instanceof NotAnImageError ? userImageMessages.notAnImage : String((error as Error).message ?? error));
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), PROFILE_IMAGE_TIMEOUT_MS);
  try {
    return await api.post<UserImageResponse>('/users/user-image', { image, image_for: imageFor }, { signal: timeout.signal });
  } catch (error) {
    if (timeout.signal.aborted) throw new UploadFailed(userImageMessages.timeout);
    if (error instanceof ApiError) throw new UploadFailed(error.message);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export function useUploadUserImage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, imageFor }: { file: File; imageFor: ImageFor }) => uploadUserImage(file, imageFor),
    onSuccess: (result) => {
      queryClient.setQueryData<CurrentUser>(currentUserQueryKey, (user) => user && (result.image_for === 'avatar' ? { ...user, avatar: result.url } : { ...user, bg_image: result.url }));
      // The top bar and sidebar read the avatar from the session.
      if (result.image_for === 'avatar') sessionStore.updateUser({ avatar: result.url });
    },
  });
}
