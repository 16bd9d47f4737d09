/** The file is not a picture the browser can decode. */
export class NotAnImageError extends Error {}

/** The longest side of an uploaded image when the caller names none (part 2 §9). */
export const DEFAULT_IMAGE_SIDE = 800;

/**
 * Shrinks a picture in the browser before upload: the longest side at most `maxSide` pixels (800 unless
 * the caller says: part 2 §9; account covers take 1200, profile images 600), JPEG at `quality`,
 * returned as a data URL (base64). Uploads stay small on phones with 12-megapixel photos.
 * Throws `NotAnImageError` when the browser cannot decode the file.
 */
export async function resizeImage(file: Blob, maxSide = DEFAULT_IMAGE_SIDE, quality = 0.7): Promise<string> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new NotAnImageError('not an image');
  }
  try {
    const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('canvas 2d context unavailable');
    // JPEG has no alpha: paint white under transparent PNGs instead of black.
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, 0, 0, width, height);
    return canvas.toDataURL('image/jpeg', quality);
  } finally {
    bitmap.close();
  }
}
