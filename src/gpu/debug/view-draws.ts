/**
 * What the debug views need for one model, built the first time a view is asked for
 * (never for models nobody debugs) and drawn by the Renderer inside its frame pass:
 *
 *   WEIGHTS    a 'weights' variant of each draw's mesh pipeline
 *   WIREFRAME  a line-list index buffer of each triangle primitive's unique edges, drawn
 *              with the 'wireframe' variant over the same vertex buffers
 *   NORMALS,   one line per vertex, from the primitive's own vertex buffers read
 *   TANGENTS   per instance, skinned by the shared skinning functions (debug.wgsl)
 *   SKELETON   one instance per joint from a buffer of bind-time joint positions, posed
 *              on the GPU by the palette entries every frame
 *
 * The views read the palette, whose entries are matrices or DqJoints by the skinning
 * method, so pipelines are built per method (`prepare(mask, method)`); buffers are shared.
 *
 * Nothing here runs per frame except `encode*`, which allocates nothing.
 */
import type { Model, Skin } from '../../gltf/model.ts';
import { invertMat4 } from '../../math/trs.ts';
import { DebugLineKind, LINE_SEGMENT_VERTICES, SHAPE_SEGMENT_VERTICES, SKELETON_JOINT_STRIDE, SkeletonJointOffset } from '../layouts/debug.ts';
import { instanceStepped, type DebugPipelines } from '../pipelines/debug.ts';
import { DebugView } from './views.ts';
import { drawIndices } from '../../gltf/topology.ts';
import { createBufferWithData, type GpuPrimitive } from '../model/upload.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { meshVariantDesc, type MeshPipelineDesc, type MeshPipelines } from '../pipelines/mesh.ts';

/** What the debug views need to know about one of the Renderer's draws. */
export interface DebugDrawSource {
  readonly meshNode: number;
  /** Index of the primitive in its mesh. */
  readonly primitiveIndex: number;
  readonly primitive: GpuPrimitive;
  /** The draw's shaded pipeline, whose variants the weights and wireframe views use (with each method's `skinning`). */
  readonly desc: MeshPipelineDesc;
  /** Vertex buffer slots the draw binds (its pipeline's layouts). */
  readonly vertexSlots: number;
}

export interface DebugViewContext {
  readonly device: GPUDevice;
  readonly label: string;
  readonly format: GPUTextureFormat;
  readonly meshPipelines: MeshPipelines;
  readonly debugPipelines: DebugPipelines;
}

// ---------------------------------------------------------------------- pure builders

/**
 * The unique edges of a triangle list or strip as a line list (each edge once, whichever
 * triangles share it; degenerate edges dropped). `indices` undefined: non-indexed.
 */
export function wireframeIndices(
  indices: ArrayLike<number> | undefined, vertexCount: number, topology: 'triangle-list' | 'triangle-strip',
): Uint16Array | Uint32Array {
  const n = indices ? indices.length : vertexCount;
  const at = (i: number): number => (indices ? indices[i] : i);
  const seen = new Set<number>();
  const edges: number[] = [];
  const add = (a: number, b: number): void => {
    if (a === b) return;
    const lo = Math.min(a, b), hi = Math.max(a, b);
    const key = lo * vertexCount + hi;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push(lo, hi);
  };
  const triangles = topology === 'triangle-list' ? Math.floor(n / 3) : Math.max(0, n - 2);
  for (let t = 0; t < triangles; t++) {
    const first = topology === 'triangle-list' ? t * 3 : t;
    const a = at(first), b = at(first + 1), c = at(first + 2);
    add(a, b);
    add(b, c);
    add(c, a);
  }
  return vertexCount > 0xffff ? Uint32Array.from(edges) : Uint16Array.from(edges);
}

/**
 * The SkeletonJointInput records of `skin` (see layouts/debug.ts): every joint whose
 * inverse bind matrix can be inverted, with its nearest ancestor joint. Returns the
 * bytes and the joint count.
 */
export function skeletonJointRecords(skin: Skin): { bytes: ArrayBuffer; count: number } {
  const count = skin.joints.length;
  const bind = new Float64Array(count * 3);
  const valid = new Uint8Array(count);
  const inverse = new Float64Array(16);
  for (let j = 0; j < count; j++) {
    if (!invertMat4(skin.inverseBindMatrices, inverse, j * 16)) continue;
    // inverse(IBM) · (0, 0, 0, 1): the joint's origin at bind time, in the palette's space.
    const w = inverse[15];
    if (!(Math.abs(w) > 1e-12)) continue;
    bind[j * 3] = inverse[12] / w;
    bind[j * 3 + 1] = inverse[13] / w;
    bind[j * 3 + 2] = inverse[14] / w;
    valid[j] = bind.subarray(j * 3, j * 3 + 3).every(Number.isFinite) ? 1 : 0;
  }
  const bytes = new ArrayBuffer(count * SKELETON_JOINT_STRIDE);
  const f32 = new Float32Array(bytes);
  const u32 = new Uint32Array(bytes);
  const i32 = new Int32Array(bytes);
  let n = 0;
  for (let j = 0; j < count; j++) {
    if (!valid[j]) continue;
    const base = (n * SKELETON_JOINT_STRIDE) / 4;
    const parent = skin.jointParents[j];
    const hasParent = parent >= 0 && valid[parent] === 1;
    for (let c = 0; c < 3; c++) {
      f32[base + SkeletonJointOffset.BIND_POSITION / 4 + c] = bind[j * 3 + c];
      f32[base + SkeletonJointOffset.PARENT_BIND_POSITION / 4 + c] = hasParent ? bind[parent * 3 + c] : 0;
    }
    u32[base + SkeletonJointOffset.JOINT / 4] = j;
    i32[base + SkeletonJointOffset.PARENT_JOINT / 4] = hasParent ? parent : -1;
    n++;
  }
  return { bytes: bytes.slice(0, n * SKELETON_JOINT_STRIDE), count: n };
}

// ---------------------------------------------------------------------- per-model draws

interface EdgeBuffer {
  readonly indexBuffer: GPUBuffer;
  readonly indexFormat: GPUIndexFormat;
  readonly indexCount: number;
}

interface WireDraw extends EdgeBuffer {
  readonly draw: number;
  readonly pipeline: GPURenderPipeline;
}

interface LineDraw {
  readonly draw: number;
  readonly pipeline: GPURenderPipeline;
}

interface SkeletonDraw {
  /** A draw of the mesh node whose palette poses this skeleton: its record holds the palette offset and world matrix. */
  readonly draw: number;
  readonly firstJoint: number;
  readonly jointCount: number;
}

/** The two skeleton pipelines: bones (one segment per joint) and joints. */
interface SkeletonPipelines {
  readonly bone: GPURenderPipeline;
  readonly joint: GPURenderPipeline;
}

/**
 * The views of one skinning method, each built in the background (BackgroundBuild) the first
 * time a frame or `prepare` asks for it. The palette holds matrices or DqJoints depending on the
 * method, so every view that reads it has a pipeline per method (rigid draws resolve to the same
 * cached pipeline for both). A failed build is reported once and kept (`retry: false`): frames
 * asking again neither rebuild nor report it every frame.
 */
interface MethodViews {
  /** DebugView bits ready to draw with this method (cleared by `DebugViewDraws.destroy`). */
  ready: number;
  /** Per draw: its 'weights' variant pipeline. */
  readonly weights: BackgroundBuild<readonly GPURenderPipeline[]>;
  readonly wire: BackgroundBuild<readonly WireDraw[]>;
  readonly normals: BackgroundBuild<readonly LineDraw[]>;
  readonly tangents: BackgroundBuild<readonly LineDraw[]>;
  readonly skeleton: BackgroundBuild<SkeletonPipelines>;
  /** Each view's build by its DebugView bit. */
  readonly builds: readonly (readonly [number, BackgroundBuild<unknown>])[];
}

const NO_PIPELINES: readonly GPURenderPipeline[] = [];

/** The debug views' draws of one model: built on request, drawn over the model in its frame pass. */
export class DebugViewDraws {
  private readonly methods: Readonly<Record<SkinningMethod, MethodViews>>;
  /** Edge index buffers by draw, built with the first WIREFRAME (shared by every method). */
  private edges: Map<number, EdgeBuffer> | undefined;
  /** Skeletons and their joint buffer, built with the first SKELETON. */
  private readonly skeletons: SkeletonDraw[] = [];
  private skeletonsBuilt = false;
  private skeletonBuffer: GPUBuffer | undefined;
  private readonly owned: GPUBuffer[] = [];
  /** Set by `destroy`: builds still under way then mark nothing ready. */
  private destroyed = false;

  constructor(private readonly ctx: DebugViewContext, private readonly model: Model, private readonly draws: readonly DebugDrawSource[]) {
    this.methods = {
      'linear': this.methodViews('linear'),
      'dual-quaternion': this.methodViews('dual-quaternion'),
      'center-of-rotation': this.methodViews('center-of-rotation'),
    };
  }

  /** The background builds of every view with `method`; each marks its bit ready when it arrives. */
  private methodViews(method: SkinningMethod): MethodViews {
    const build = <T>(bit: number, name: string, make: () => Promise<T>): BackgroundBuild<T> =>
      new BackgroundBuild(`the ${name} debug view (${method} skinning)`, async () => {
        const built = await make();
        if (!this.destroyed) views.ready |= bit;
        return built;
      }, { retry: false });
    const weights = build(DebugView.WEIGHTS, 'weights', () => this.buildWeights(method));
    const wire = build(DebugView.WIREFRAME, 'wireframe', () => this.buildWireframe(method));
    const normals = build(DebugView.NORMALS, 'normals', () => this.buildLines(DebugLineKind.NORMALS, method));
    const tangents = build(DebugView.TANGENTS, 'tangents', () => this.buildLines(DebugLineKind.TANGENTS, method));
    const skeleton = build(DebugView.SKELETON, 'skeleton', () => this.buildSkeleton(method));
    const views: MethodViews = {
      ready: 0, weights, wire, normals, tangents, skeleton,
      builds: [[DebugView.WEIGHTS, weights], [DebugView.WIREFRAME, wire], [DebugView.NORMALS, normals], [DebugView.TANGENTS, tangents], [DebugView.SKELETON, skeleton]],
    };
    return views;
  }

  /** DebugView bits whose resources and pipelines are ready to draw with `method`. */
  readyFor(method: SkinningMethod): number {
    return this.methods[method].ready;
  }

  /** Per draw, the 'weights' variant pipelines of `method` (complete once WEIGHTS is ready for it). */
  weightsPipelines(method: SkinningMethod): readonly GPURenderPipeline[] {
    return this.methods[method].weights.value ?? NO_PIPELINES;
  }

  /** Builds what the views in `mask` need with `method` (each view once; concurrent asks share a build). */
  async prepare(mask: number, method: SkinningMethod = 'linear'): Promise<void> {
    await Promise.all(this.methods[method].builds.filter(([bit]) => (mask & bit) !== 0).map(([, b]) => b.prepare()));
  }

  /** Per draw, its 'weights' variant pipeline. */
  private async buildWeights(skinning: SkinningMethod): Promise<readonly GPURenderPipeline[]> {
    const pipelines: GPURenderPipeline[] = [];
    // One at a time: draws share variants, and the mesh cache fills as each resolves.
    for (const d of this.draws) pipelines.push(await this.ctx.meshPipelines.pipeline({ ...meshVariantDesc(d.desc, 'weights'), skinning }));
    return pipelines;
  }

  /** Each triangle draw's edges with its 'wireframe' variant pipeline. */
  private async buildWireframe(skinning: SkinningMethod): Promise<readonly WireDraw[]> {
    this.edges ??= this.createEdgeBuffers();
    const wire: WireDraw[] = [];
    for (const [draw, e] of this.edges) {
      const pipeline = await this.ctx.meshPipelines.pipeline({ ...meshVariantDesc(this.draws[draw].desc, 'wireframe'), skinning });
      wire.push({ draw, pipeline, ...e });
    }
    return wire;
  }

  /** The normal or tangent lines' pipeline of each draw whose primitive has them. */
  private async buildLines(kind: DebugLineKind, skinning: SkinningMethod): Promise<readonly LineDraw[]> {
    const lines: LineDraw[] = [];
    for (let i = 0; i < this.draws.length; i++) {
      const d = this.draws[i];
      const has = kind === DebugLineKind.NORMALS ? d.primitive.hasNormals : d.primitive.hasTangents;
      if (!has || d.primitive.vertexCount === 0) continue;
      const pipeline = await this.ctx.debugPipelines.lines({
        kind,
        vertexLayoutKey: d.desc.vertexLayoutKey,
        vertexLayouts: instanceStepped(d.desc.vertexLayouts),
        influences: d.desc.influences,
        skinning,
        colorFormat: this.ctx.format,
      });
      lines.push({ draw: i, pipeline });
    }
    return lines;
  }

  /** The bone and joint pipelines; the skeletons' joint buffer the first time. */
  private async buildSkeleton(skinning: SkinningMethod): Promise<SkeletonPipelines> {
    const { debugPipelines, format } = this.ctx;
    const [bone, joint] = await Promise.all([debugPipelines.skeleton('bone', format, skinning), debugPipelines.skeleton('joint', format, skinning)]);
    if (!this.skeletonsBuilt && !this.destroyed) this.createSkeletons();
    return { bone, joint };
  }

  /** Edge index buffers of every triangle draw (one per primitive, shared by the draws of a mesh), by draw. */
  private createEdgeBuffers(): Map<number, EdgeBuffer> {
    const byPrimitive = new Map<GpuPrimitive, EdgeBuffer | null>();
    const out = new Map<number, EdgeBuffer>();
    const model = this.model;
    for (let i = 0; i < this.draws.length; i++) {
      const d = this.draws[i];
      const p = d.primitive;
      let entry = byPrimitive.get(p);
      if (entry === undefined) {
        entry = null;
        if (p.topology === 'triangle-list' || p.topology === 'triangle-strip') {
          // The model's own edges (a welded primitive's shared edges stay one line per triangle,
          // as before welding), renumbered to the vertices the buffers hold.
          const own = model.meshes[model.meshNodes[d.meshNode].mesh].primitives[d.primitiveIndex];
          let indices = wireframeIndices(drawIndices(own), own.vertexCount, p.topology);
          if (p.source !== own) {
            const welded = p.source.indices!;
            indices = indices.map((v) => welded[v]);
          }
          if (indices.length > 0) {
            const indexBuffer = createBufferWithData(this.ctx.device, `${p.label} wireframe edges`, indices, GPUBufferUsage.INDEX);
            this.owned.push(indexBuffer);
            entry = { indexBuffer, indexFormat: indices instanceof Uint32Array ? 'uint32' : 'uint16', indexCount: indices.length };
          }
        }
        byPrimitive.set(p, entry);
      }
      if (entry) out.set(i, entry);
    }
    return out;
  }

  /** One skeleton per skin, posed by the palette of the first mesh node that uses it. */
  private createSkeletons(): void {
    this.skeletonsBuilt = true;
    const model = this.model;
    const parts: ArrayBuffer[] = [];
    let joints = 0;
    const done = new Set<number>();
    for (let i = 0; i < this.draws.length; i++) {
      const skinIndex = model.meshNodes[this.draws[i].meshNode].skin;
      if (skinIndex < 0 || done.has(skinIndex)) continue;
      done.add(skinIndex);
      const { bytes, count } = skeletonJointRecords(model.skins[skinIndex]);
      if (count === 0) continue;
      this.skeletons.push({ draw: i, firstJoint: joints, jointCount: count });
      parts.push(bytes);
      joints += count;
    }
    if (joints === 0) return;
    const all = new Uint8Array(joints * SKELETON_JOINT_STRIDE);
    let at = 0;
    for (const p of parts) {
      all.set(new Uint8Array(p), at);
      at += p.byteLength;
    }
    this.skeletonBuffer = createBufferWithData(this.ctx.device, `${this.ctx.label} ${model.name} skeleton joints`, all, GPUBufferUsage.VERTEX);
    this.owned.push(this.skeletonBuffer);
  }

  /**
   * From the frame path: starts building the views of `mask` not yet built or under way with
   * `method` (allocates only then); `onFailed` hears of a failed build once.
   */
  request(mask: number, method: SkinningMethod, onFailed: BuildFailure): void {
    const builds = this.methods[method].builds;
    for (let i = 0; i < builds.length; i++) if (mask & builds[i][0]) builds[i][1].request(onFailed);
  }

  /**
   * Records the overlays of `mask` (wireframe, normals, tangents, skeleton — in that order,
   * the skeleton on top) for `instances` instances into the frame's pass, with the pipelines
   * of skinning `method` (the palette's format this frame); the draw records of draw i
   * are i × instances + k. Returns the draw calls issued. Allocates nothing.
   */
  encodeOverlays(pass: GPURenderPassEncoder, mask: number, instances: number, method: SkinningMethod = 'linear'): number {
    const m = this.methods[method];
    const views = mask & m.ready;
    let calls = 0;
    if (views & DebugView.WIREFRAME) {
      const wire = m.wire.value!;
      for (let w = 0; w < wire.length; w++) {
        const e = wire[w];
        pass.setPipeline(e.pipeline);
        this.bindVertexBuffers(pass, e.draw);
        pass.setIndexBuffer(e.indexBuffer, e.indexFormat);
        pass.drawIndexed(e.indexCount, instances, 0, 0, e.draw * instances);
        calls++;
      }
    }
    for (let kind = 0; kind < 2; kind++) {
      if (!(views & (kind === 0 ? DebugView.NORMALS : DebugView.TANGENTS))) continue;
      const lines = (kind === 0 ? m.normals : m.tangents).value!;
      for (let l = 0; l < lines.length; l++) {
        const e = lines[l];
        pass.setPipeline(e.pipeline);
        this.bindVertexBuffers(pass, e.draw);
        const vertices = this.draws[e.draw].primitive.vertexCount;
        // One instance per mesh vertex; the record comes from the first vertex.
        for (let k = 0; k < instances; k++) {
          pass.draw(LINE_SEGMENT_VERTICES, vertices, (e.draw * instances + k) * LINE_SEGMENT_VERTICES, 0);
          calls++;
        }
      }
    }
    if ((views & DebugView.SKELETON) && this.skeletonBuffer) {
      const skeleton = m.skeleton.value!;
      pass.setVertexBuffer(0, this.skeletonBuffer);
      for (let shape = 0; shape < 2; shape++) {
        pass.setPipeline(shape === 0 ? skeleton.bone : skeleton.joint);
        for (let s = 0; s < this.skeletons.length; s++) {
          const e = this.skeletons[s];
          for (let k = 0; k < instances; k++) {
            pass.draw(SHAPE_SEGMENT_VERTICES, e.jointCount, (e.draw * instances + k) * SHAPE_SEGMENT_VERTICES, e.firstJoint);
            calls++;
          }
        }
      }
    }
    return calls;
  }

  private bindVertexBuffers(pass: GPURenderPassEncoder, draw: number): void {
    const d = this.draws[draw];
    const p = d.primitive;
    for (let s = 0; s < d.vertexSlots; s++) pass.setVertexBuffer(s, p.vertexBuffers[s], p.vertexOffsets[s], p.vertexSizes[s]);
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.owned) b.destroy();
    this.owned.length = 0;
    for (const m of Object.values(this.methods)) m.ready = 0;
  }
}
