/**
 * Binomial's Basis Universal transcoder (the `basis_transcoder.js` + `.wasm` pair that the
 * `three` package ships in examples/jsm/libs/basis), loaded on first use only: a file without
 * KTX2 textures never imports it. Both files are bundled (`?raw` and `?inline`), so the
 * library build needs no CDN and no network. The JS is a classic Emscripten script, not a
 * module: it is evaluated with `process` and `require` hidden, so it takes the WebAssembly
 * bytes it is given in Node and in browsers alike.
 */

/** What this project uses of the transcoder's embind `KTX2File`. */
export interface BasisKtx2File {
  isValid(): boolean;
  isUASTC(): boolean;
  isETC1S(): boolean;
  getWidth(): number;
  getHeight(): number;
  getLevels(): number;
  getFaces(): number;
  getLayers(): number;
  getHasAlpha(): boolean;
  startTranscoding(): boolean;
  getImageTranscodedSizeInBytes(level: number, layer: number, face: number, format: number): number;
  transcodeImage(dst: Uint8Array, level: number, layer: number, face: number, format: number, getAlphaForOpaque: number, channel0: number, channel1: number): number;
  close(): void;
  delete(): void;
}

export interface BasisTranscoderModule {
  KTX2File: new (bytes: Uint8Array) => BasisKtx2File;
  initializeBasis(): void;
}

/** The transcoder's `transcoder_texture_format` values this project asks for. */
export const BasisFormat = {
  ETC1_RGB: 0,
  ETC2_RGBA: 1,
  BC7_RGBA: 6,
  ASTC_4X4_RGBA: 10,
  RGBA32: 13,
} as const;

let modulePromise: Promise<BasisTranscoderModule> | undefined;

/** The shared transcoder, imported and instantiated on first call. */
export function loadBasisTranscoder(): Promise<BasisTranscoderModule> {
  if (!modulePromise) {
    const loading = instantiate();
    modulePromise = loading;
    loading.catch(() => { if (modulePromise === loading) modulePromise = undefined; });
  }
  return modulePromise;
}

/** Drops the shared module (after the WebAssembly trapped) so the next transcode starts a fresh one. */
export function retireBasisTranscoder(module: BasisTranscoderModule): void {
  const current = modulePromise;
  if (!current) return;
  current.then((m) => { if (m === module && modulePromise === current) modulePromise = undefined; }, () => {});
}

async function instantiate(): Promise<BasisTranscoderModule> {
  const [{ default: script }, { default: wasmUrl }] = await Promise.all([
    import('three/examples/jsm/libs/basis/basis_transcoder.js?raw'),
    import('three/examples/jsm/libs/basis/basis_transcoder.wasm?inline'),
  ]);
  const factory = new Function('process', 'require', `${script}\nreturn BASIS;`)(undefined, undefined) as
    (options: { wasmBinary: Uint8Array }) => Promise<BasisTranscoderModule>;
  const module = await factory({ wasmBinary: dataUrlBytes(wasmUrl) });
  module.initializeBasis();
  return module;
}

/** The bytes of a base64 `data:` URL (what `?inline` gives), without fetch (CSPs may forbid it). */
function dataUrlBytes(url: string): Uint8Array {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0 || !url.slice(0, comma).endsWith(';base64')) {
    throw new Error('the bundled Basis transcoder WebAssembly is not a base64 data URL');
  }
  const text = atob(url.slice(comma + 1));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
