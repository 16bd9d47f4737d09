import { useRef, useState } from 'react';
import { imageUploadFailed, type ImageFor } from '@oj/contracts/users';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { useUploadUserImage } from '../api/upload-user-image.ts';

/**
 * Picks a picture for the avatar or the cover. Any image file is accepted (part 2 §5): it is resized
 * before the upload; a failure reads "Failed to upload {avatar or cover} image: {reason}".
 */
export function ProfileImageButton({ imageFor, onError }: { imageFor: ImageFor; onError: (message: string | null) => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const upload = useUploadUserImage();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const label = imageFor === 'avatar' ? 'Change avatar' : 'Change cover';

  const onFile = (file: File | undefined) => {
    if (!file) return;
    onError(null);
    setBusy(true);
    upload.mutate(
      { file, imageFor },
      {
        onSuccess: () => toast.success(imageFor === 'avatar' ? 'Avatar updated.' : 'Cover image updated.'),
        onError: (error) => onError(imageUploadFailed(imageFor, error instanceof Error && error.message ? error.message : 'unknown error')),
        onSettled: () => setBusy(false),
      },
    );
  };

  return (
    <>
      <Button variant="secondary" size="sm" icon={<Icon name="image" size={16} />} loading={busy} onClick={() => inputRef.current?.click()}>
        {busy ? 'Uploading...' : label}
      </Button>
      <input
        ref={inputRef}
        type="file"
        accept="image/*"
        hidden
        aria-label={label}
        data-image-for={imageFor}
        onChange={(e) => {
          onFile(e.target.files?.[0]);
          // The same file chosen again must fire again.
          e.target.value = '';
        }}
      />
    </>
  );
}
