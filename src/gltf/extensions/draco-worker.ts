/**
 * The Web Worker that decodes KHR_draco_mesh_compression primitives off the page's main
 * thread (started by draco-offthread.ts). Its WebAssembly is the `draco3dgltf` package's
 * own, bundled with the library build as an asset of this worker: no CDN, no network
 * beyond the page's own origin.
 */
import wasmUrl from 'draco3dgltf/draco_decoder_gltf.wasm?url';
import type { AccessorData } from '../accessors.ts';
import { LoadBudget } from '../budget.ts';
import { serveWorkerJobs } from '../offthread.ts';
import { configureDracoDecoder, decodeDracoPrimitive, type DracoPrimitiveRequest } from './draco.ts';

/** What the worker sends back (draco-offthread.ts reads it): the decoded primitive, its attributes as entries. */
export interface DracoWorkerResult {
  readonly vertexCount: number;
  readonly attributes: [string, AccessorData][];
  readonly indices: AccessorData;
}

configureDracoDecoder({ locateFile: (file, prefix) => (file.endsWith('.wasm') ? new URL(wasmUrl, import.meta.url).href : prefix + file) });

serveWorkerJobs<DracoPrimitiveRequest, DracoWorkerResult>(
  async (request) => {
    // The page charged the declared output sizes to its load's budget before posting.
    const decoded = await decodeDracoPrimitive(request, new LoadBudget(Infinity, 0));
    const attributes = [...decoded.attributes];
    const transfer = [...attributes.map(([, a]) => a.array.buffer), decoded.indices.array.buffer];
    return { result: { vertexCount: decoded.vertexCount, attributes, indices: decoded.indices }, transfer };
  },
  (request, e) => ({ path: request.path, problem: `the Draco decoder failed: ${e instanceof Error ? e.message : String(e)}` }),
);
