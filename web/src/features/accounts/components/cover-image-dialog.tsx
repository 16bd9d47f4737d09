import { useEffect, useRef, useState } from 'react';
import { ACCOUNT_IMAGE_MAX_SIDE, accountMessages, type Account } from '@oj/contracts/accounts';
import { ApiError } from '@/lib/api-client.ts';
import { NotAnImageError, resizeImage } from '@/lib/resize-image.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { useUploadAccountImage } from '../api/upload-account-image.ts';
import { AccountCover } from './account-cover.tsx';

/** Edit Cover Image: pick a picture, it is resized here to 1200 px (JPEG 0.7) and sent as base64. */
export function CoverImageDialog({ account, onClose }: { account: Account | null; onClose: () => void }) {
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [preparing, setPreparing] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const upload = useUploadAccountImage();
  const toast = useToast();

  useEffect(() => {
    setPreview(null);
    setError(null);
  }, [account?.uid]);

  const onFile = async (file: File | undefined) => {
    setError(null);
    if (!file) return;
    setPreparing(true);
    try {
      setPreview(await resizeImage(file, ACCOUNT_IMAGE_MAX_SIDE, 0.7));
    } catch (err) {
      setPreview(null);
      setError(err instanceof NotAnImageError ? accountMessages.notAnImage : 'Failed to upload cover image.');
    } finally {
      setPreparing(false);
    }
  };

  const save = () => {
    if (!account || !preview) return;
    upload.mutate(
      { uid: account.uid, image: preview },
      {
        onSuccess: () => {
          toast.success('Cover image updated.');
          onClose();
        },
        onError: (err) => setError(err instanceof ApiError && err.status >= 400 && err.status < 500 && err.message ? err.message : 'Failed to upload cover image.'),
      },
    );
  };

  return (
    <Modal
      open={account !== null}
      onClose={onClose}
      dismissible={!upload.isPending}
      title="Edit Cover Image"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={upload.isPending}>
            Cancel
          </Button>
          <Button onClick={save} disabled={!preview} loading={upload.isPending}>
            {upload.isPending ? 'Uploading...' : 'Upload'}
          </Button>
        </>
      }
    >
      {account && (
        <div className="cover-editor">
          {error && <Alert tone="danger">{error}</Alert>}
          <div className="cover-editor-preview">
            {preview ? <img className="account-cover" src={preview} alt="New cover preview" /> : <AccountCover name={account.name} url={account.bg_image} />}
          </div>
          {/* Hidden, as the profile's image inputs: "Choose an image" opens it. Visually hidden only, it took
              a Tab of its own and showed no focus (QA). */}
          <input
            ref={inputRef}
            type="file"
            accept="image/*"
            hidden
            aria-label="Cover image file"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
          <Button variant="secondary" block onClick={() => inputRef.current?.click()} loading={preparing}>
            {preview ? 'Choose another image' : 'Choose an image'}
          </Button>
          <p className="field-hint">Any picture works: it is resized to at most {ACCOUNT_IMAGE_MAX_SIDE} px before upload.</p>
        </div>
      )}
    </Modal>
  );
}
