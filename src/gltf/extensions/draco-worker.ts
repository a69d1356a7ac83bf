/**
 * The Web Worker that decodes KHR_draco_mesh_compression primitives off the page's main
 * thread (started by draco-offthread.ts). Its WebAssembly is the `draco3dgltf` package's
 * own, bundled with the library build as an asset of this worker: no CDN, no network
 * beyond the page's own origin.
 */
import wasmUrl from 'draco3dgltf/draco_decoder_gltf.wasm?url';
import { LoadBudget } from '../budget.ts';
import { GltfError } from '../errors.ts';
import { configureDracoDecoder, decodeDracoPrimitive } from './draco.ts';
import type { DracoWorkerReply, DracoWorkerRequest } from './draco-offthread.ts';

/** The part of a dedicated worker's global scope used here (the DOM typings describe a window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<DracoWorkerRequest>) => void): void;
  postMessage(message: DracoWorkerReply, transfer: Transferable[]): void;
}
const scope = globalThis as unknown as WorkerScope;

configureDracoDecoder({ locateFile: (file, prefix) => (file.endsWith('.wasm') ? new URL(wasmUrl, import.meta.url).href : prefix + file) });

scope.addEventListener('message', (event) => {
  const { id, request } = event.data;
  // The page charged the declared output sizes to its load's budget before posting.
  decodeDracoPrimitive(request, new LoadBudget(Infinity, 0)).then(
    (decoded) => {
      const attributes = [...decoded.attributes];
      const transfer = [...attributes.map(([, a]) => a.array.buffer), decoded.indices.array.buffer];
      scope.postMessage({ id, vertexCount: decoded.vertexCount, attributes, indices: decoded.indices }, transfer);
    },
    (e: unknown) => {
      const error = e instanceof GltfError
        ? { path: e.path, problem: e.problem }
        : { path: request.path, problem: `the Draco decoder failed: ${e instanceof Error ? e.message : String(e)}` };
      scope.postMessage({ id, error }, []);
    },
  );
});
