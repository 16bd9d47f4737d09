import sharp from 'sharp';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { accountMessages } from '@oj/contracts/accounts';
import { AppError } from '../app/errors.ts';
import { API_PREFIX } from '../app/api-prefix.ts';

export const MAX_IMAGE_BYTES = 6 * 1024 * 1024;
/** Decoding is refused above this many pixels: a small PNG can unpack to gigabytes. */
const MAX_IMAGE_PIXELS = 50_000_000;
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);
/** Uploaded file names: random (unguessable, so the public URL is the capability) and never user-chosen. */
export const UPLOAD_FILE = /^[a-z]+-[A-Za-z0-9_-]{22,64}\.jpg$/;

export const uploadsDir = (dataDir: string): string => join(dataDir, 'uploads');
export const uploadUrl = (file: string): string => `${API_PREFIX}/uploads/${file}`;

/**
 * Decodes a base64 image (optionally a `data:` URL), re-encodes it as JPEG no larger than `maxSide` on
 * its longest side, and stores it under `<dataDir>/uploads/`. Re-encoding strips metadata (EXIF
 * location) and anything that is not pixels; SVG and other formats are refused.
 */
export async function storeImage(dataDir: string, kind: string, base64: string, maxSide: number): Promise<{ file: string; url: string }> {
  const payload = base64.replace(/^data:[^;,]*;base64,/, '').replace(/\s+/g, '');
  if (payload.length > Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 4) throw new AppError('payload_too_large', accountMessages.imageTooLarge);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload)) throw new AppError('unsupported_media', accountMessages.notAnImage);
  const input = Buffer.from(payload, 'base64');
  if (input.length === 0) throw new AppError('bad_request', accountMessages.imageMissing);
  let output: Buffer;
  let tooManyPixels = false;
  try {
    const image = sharp(input, { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS });
    // The header alone (no pixels decoded), read without the limit: sharp's own check would answer as for a non-image.
    const meta = await sharp(input, { failOn: 'error', limitInputPixels: false }).metadata();
    if (!meta.format || !ACCEPTED.has(meta.format)) throw new Error(`format ${meta.format}`);
    tooManyPixels = (meta.width ?? 0) * (meta.height ?? 0) > MAX_IMAGE_PIXELS;
    if (tooManyPixels) throw new Error('too many pixels');
    output = await image
      .rotate() // honour EXIF orientation before the metadata is dropped
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 70, mozjpeg: true })
      .toBuffer();
  } catch {
    throw tooManyPixels ? new AppError('invalid', accountMessages.imageTooManyPixels) : new AppError('unsupported_media', accountMessages.notAnImage);
  }
  const dir = uploadsDir(dataDir);
  await mkdir(dir, { recursive: true });
  const file = `${kind}-${randomBytes(18).toString('base64url')}.jpg`;
  const path = join(dir, file);
  await writeFile(`${path}.tmp`, output);
  await rename(`${path}.tmp`, path);
  return { file, url: uploadUrl(file) };
}

/** The stored file behind a URL this store handed out; null for anything else (none, a default picture). */
export function uploadFileOf(url: string | null | undefined): string | null {
  const prefix = uploadUrl('');
  if (!url?.startsWith(prefix)) return null;
  const file = url.slice(prefix.length);
  return UPLOAD_FILE.test(file) ? file : null;
}

/**
 * Deletes the file behind an image URL that no longer names anyone's picture (replaced, or the
 * replacement failed before it was recorded). Served publicly by its URL, a replaced picture must not
 * stay reachable by whoever saw that URL (QA: an old avatar was still served). Each upload gets its own
 * random name, so no other row points at it. A file already gone is fine.
 */
export async function removeStoredImage(dataDir: string, url: string | null | undefined): Promise<void> {
  const file = uploadFileOf(url);
  if (file) await rm(join(uploadsDir(dataDir), file), { force: true });
}
