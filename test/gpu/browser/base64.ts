/** Base64 → bytes for the GPU test pages (their inputs cross page.evaluate as base64; toBase64 is the builder's). */
export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
