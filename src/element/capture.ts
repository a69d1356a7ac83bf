/**
 * Encoding a read-back frame as an image file for `capture()`. The renderer writes
 * premultiplied alpha (what a premultiplied canvas composites); image files and ImageData
 * hold straight alpha, so partly transparent pixels are un-premultiplied first. Opaque
 * pixels pass through unchanged, so a capture of an opaque frame is byte-identical to a
 * readback of it.
 */

/** Premultiplied → straight alpha, in place. */
export function unpremultiply(rgba: Uint8Array | Uint8ClampedArray): void {
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3];
    if (a === 255 || a === 0) continue;
    const scale = 255 / a;
    rgba[i] = Math.min(255, Math.round(rgba[i] * scale));
    rgba[i + 1] = Math.min(255, Math.round(rgba[i + 1] * scale));
    rgba[i + 2] = Math.min(255, Math.round(rgba[i + 2] * scale));
  }
}

/** RGBA8 straight alpha, top row first → an image file of `type` through the browser's encoders. */
export async function encodeImage(rgba: Uint8ClampedArray<ArrayBuffer>, width: number, height: number, type: string, quality?: number): Promise<Blob> {
  const image = new ImageData(rgba, width, height);
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('capture: no 2D context to encode the image with');
    context.putImageData(image, 0, 0);
    return canvas.convertToBlob(quality === undefined ? { type } : { type, quality });
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('capture: no 2D context to encode the image with');
  context.putImageData(image, 0, 0);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error(`capture: the browser could not encode ${type}`))), type, quality);
  });
}
