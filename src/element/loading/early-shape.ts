import { GLB_CHUNK_JSON, GLB_MAGIC } from '../../gltf/constants.ts';
import { parseJsonBytes } from '../../gltf/glb.ts';
import { isObject } from '../../gltf/json.ts';
import { tellModelShape, type ModelShape } from '../../gltf/model-shape.ts';

/** GLB header (magic, version, length) and the first chunk's header (length, type). */
const GLB_PREFIX_BYTES = 20;

/**
 * The model's shape (gltf/model-shape.ts) from the first bytes of a GLB download: the JSON chunk
 * comes first, so pipelines can start compiling (Renderer.forecast) while the BIN chunk (buffers,
 * images) still downloads. Told each streamed chunk in order; delivers the shape once, as soon
 * as the JSON chunk is complete, and then ignores the rest. Not a GLB, a header it cannot read or
 * JSON it cannot parse: it delivers nothing, and the load hands `onShape` to loadGltf as usual.
 */
export class EarlyShape {
  private readonly chunks: Uint8Array[] = [];
  private received = 0;
  /** Bytes up to the end of the JSON chunk, once the header says so. */
  private needed = 0;
  private done = false;
  private shapeDelivered = false;

  constructor(private readonly onShape: (shape: ModelShape) => void) {}

  /** Whether the shape went out, or will once the material readers it needs have loaded (the load then does not ask loadGltf for it again). */
  get delivered(): boolean {
    return this.shapeDelivered;
  }

  /** The next chunk of the download. */
  add(chunk: Uint8Array): void {
    if (this.done) return;
    this.chunks.push(chunk);
    this.received += chunk.byteLength;
    if (this.needed === 0) {
      if (this.received < GLB_PREFIX_BYTES) return;
      const head = new DataView(this.prefix(GLB_PREFIX_BYTES).buffer);
      if (head.getUint32(0, true) !== GLB_MAGIC || head.getUint32(16, true) !== GLB_CHUNK_JSON) {
        this.stop();
        return;
      }
      this.needed = GLB_PREFIX_BYTES + head.getUint32(12, true);
    }
    if (this.received < this.needed) return;
    const json = this.prefix(this.needed).subarray(GLB_PREFIX_BYTES);
    this.stop();
    let root: unknown;
    try {
      root = parseJsonBytes(json, 'glb.chunks[0]');
    } catch {
      return;
    }
    if (!isObject(root)) return;
    let told = false;
    const pending = tellModelShape(root, (shape) => {
      told = true;
      this.onShape(shape);
    });
    // Waiting for the material readers it needs counts as delivered: the shape goes out once they
    // load, and not a second time from loadGltf. A rejection is dropped here: the readers failing
    // to load fails the load itself (loadGltf awaits them), and an onShape that throws once they
    // have loaded only loses a forecast (the element's does not throw: Renderer.forecast is async).
    if (pending) pending.catch(() => {});
    this.shapeDelivered = told || pending !== undefined;
  }

  /** The first `bytes` bytes received, in one array. */
  private prefix(bytes: number): Uint8Array {
    const out = new Uint8Array(bytes);
    let at = 0;
    for (const c of this.chunks) {
      if (at >= bytes) break;
      const part = c.subarray(0, bytes - at);
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }

  private stop(): void {
    this.done = true;
    this.chunks.length = 0;
  }
}
