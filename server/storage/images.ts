import sharp from 'sharp';
import { storageError } from './context';

/** The longest side an uploaded image keeps: wide enough for a profile's cover on a large screen. */
const MAX_IMAGE_SIDE = 2048;
/** The most pixels an upload may decode to: a small file can claim a huge canvas (a decompression bomb). */
const MAX_INPUT_PIXELS = 40_000_000;

/**
 * An uploaded image as it is kept and served: decoded and encoded again by sharp (libvips), turned
 * upright by its EXIF orientation, at most MAX_IMAGE_SIDE on its longest side, in its own format.
 * Nothing of the original's metadata survives (EXIF with a phone's GPS position above all), and
 * the original is kept nowhere. sharp does this in libuv's threads, off the event loop, and is the
 * image library a Node server is expected to use; hand-stripping EXIF would miss XMP, IPTC and
 * the formats' other places for it.
 */
export async function cleanImage(bytes: Buffer, type: string): Promise<Buffer> {
  const animated = type === 'image/gif' || type === 'image/webp';
  let image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, animated, failOn: 'error' })
    .autoOrient()
    .resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true });
  if (type === 'image/jpeg') image = image.jpeg({ quality: 85 });
  else if (type === 'image/png') image = image.png();
  else if (type === 'image/webp') image = image.webp({ quality: 85 });
  else if (type === 'image/gif') image = image.gif();
  else throw storageError(415, 'invalid_mime_type', `mime type ${type} is not supported`);
  try {
    return await image.toBuffer();
  } catch (error) {
    if (/pixel limit/i.test(String((error as Error).message)))
      throw storageError(413, 'Payload too large', 'The image is too large: at most 40 megapixels.');
    throw storageError(400, 'Invalid Input', 'The image could not be read.');
  }
}
