/**
 * The pipelines of one model's draws, in one table keyed by what a frame chooses: the
 * skinning method (the palette's format), the skinning path (preskin.ts: skin in each
 * pass's vertex stage, or read what the compute pass skinned) and whether the lit pass
 * looks the key light's shadow up. An entry is built the first time something asks for
 * it, from the device's pipeline caches; frames read entries without allocating.
 *
 * The compute path's lit pipelines always take the shadow lookup (they are not
 * specialised for it), so one entry per method serves that path with shadows on or off.
 */
import { SKINNING_METHODS, type SkinningMethod } from '../../anim/skinning-method.ts';
import { materialFeaturesOf, materialPathOf, meshVariantDesc, PRESKINNED_ENTRY_POINT, type MeshPipelineDesc, type MeshPipelines } from '../pipelines/mesh.ts';
import type { PreskinDraw } from './preskin-layout.ts';
import type { SkinningPath } from '../frame/render-settings.ts';
import type { ShadowCasterPipelines } from '../frame/shadow-map.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { transmitsLight } from '../pipelines/pbr-extensions-path.ts';
import { TRANSMISSION_FORMAT } from '../layouts/bindings.ts';

/** What frames of one key draw with. */
export interface DrawPipelines {
  /** Per draw: its lit pipeline. */
  readonly surface: readonly GPURenderPipeline[];
  /** Per draw: its outline's pipeline (MeshVariant 'outline'; null: its material draws none). */
  readonly outline: readonly (GPURenderPipeline | null)[];
  /** Per draw: its shadow pass pipeline (null: it casts none); empty for the vertex path without shadows. */
  readonly casters: readonly (GPURenderPipeline | null)[];
  /** The compute path's pipelines, one per skinned draw (preskinVariants); empty on the vertex path. */
  readonly compute: readonly GPUComputePipeline[];
  /**
   * Per draw: its pipeline into the transmission pass's target (transmission-pass.ts), null for
   * draws that are not part of the opaque scene (blended and transmissive ones); empty for a
   * model without transmission.
   */
  readonly transmission: readonly (GPURenderPipeline | null)[];
}

/** What the table needs of one of the Renderer's draws. */
export interface PipelineDraw extends PreskinDraw {
  /** Its lit pipeline on the vertex path; the key sets `skinning` and `shadows`. */
  readonly desc: MeshPipelineDesc;
}

export interface DrawPipelineContext {
  readonly device: GPUDevice;
  readonly meshPipelines: MeshPipelines;
  readonly casterPipelines: ShadowCasterPipelines;
}

/** What a method needs ready besides its pipelines (centre of rotation: the model's centres on the GPU). */
export type PrepareMethod = (method: SkinningMethod) => Promise<void>;

/** Entries per method: the vertex path without and with shadows, then the compute path. */
const ENTRIES_PER_METHOD = 3;

/** The path/shadow keys of one method's entries. */
const KEYS: readonly (readonly [SkinningPath, boolean])[] = [['vertex', false], ['vertex', true], ['compute', true]];

function entryIndex(method: SkinningMethod, path: SkinningPath, shadows: boolean): number {
  return SKINNING_METHODS.indexOf(method) * ENTRIES_PER_METHOD + (path === 'compute' ? 2 : shadows ? 1 : 0);
}

export class DrawPipelineTable {
  /** By entryIndex. A failed build is kept: frames that ask again do not retry (and report) every frame. */
  private readonly entries: BackgroundBuild<DrawPipelines>[] = [];

  /**
   * `onComputeBuilt`: runs when a compute path entry is built, before frames can take it (its
   * buffers), with the compute path's code (preskin.ts), which that build imports: a page whose
   * frames never skin by compute does not load it. `prepareMethod`: awaited before a method's first entry is built, so an entry is
   * ready only once what its pipelines read is (a shader compile and the centres alike).
   */
  constructor(
    private readonly ctx: DrawPipelineContext,
    private readonly draws: readonly PipelineDraw[],
    private readonly onComputeBuilt: (code: typeof import('./preskin.ts')) => void,
    private readonly prepareMethod: PrepareMethod = async () => {},
  ) {
    for (const method of SKINNING_METHODS) {
      for (const [path, shadows] of KEYS) {
        const what = `the ${method} ${path === 'compute' ? 'compute skinning path' : shadows ? 'shadow pipelines' : 'skinning pipelines'}`;
        this.entries[entryIndex(method, path, shadows)] = new BackgroundBuild(what, () => this.build(method, path, shadows), { retry: false });
      }
    }
  }

  /** The key's entry once built, else undefined. Allocates nothing. */
  get(method: SkinningMethod, path: SkinningPath, shadows: boolean): DrawPipelines | undefined {
    return this.entries[entryIndex(method, path, shadows)].value;
  }

  /**
   * From the frame path: the key's entry once built; until then undefined, and the first
   * call starts the build (the frame allocates only then), reporting a failure to `onFailed`.
   */
  request(method: SkinningMethod, path: SkinningPath, shadows: boolean, onFailed: BuildFailure): DrawPipelines | undefined {
    return this.entries[entryIndex(method, path, shadows)].request(onFailed);
  }

  /**
   * Builds the key's entry unless that has started; concurrent callers share the build. A
   * failed build is kept: frames that ask again do not retry (and report) every frame, and
   * awaiting it reports the failure again.
   */
  ensure(method: SkinningMethod, path: SkinningPath, shadows: boolean): Promise<DrawPipelines> {
    return this.entries[entryIndex(method, path, shadows)].prepare();
  }

  /** Builds every entry `other` (a table of the same model's draws) has built; resolves when they are. */
  async ensureBuiltIn(other: DrawPipelineTable): Promise<void> {
    const builds: Promise<DrawPipelines>[] = [];
    for (const method of SKINNING_METHODS) {
      for (const [path, shadows] of KEYS) if (other.get(method, path, shadows)) builds.push(this.ensure(method, path, shadows));
    }
    await Promise.all(builds);
  }

  private async build(skinning: SkinningMethod, path: SkinningPath, shadows: boolean): Promise<DrawPipelines> {
    const { device, meshPipelines, casterPipelines } = this.ctx;
    const draws = this.draws;
    await this.prepareMethod(skinning);
    if (path === 'compute') {
      // A frame falls back to its method's vertex path until this is built; preparing the
      // compute path readies that fallback too.
      const [code] = await Promise.all([import('./preskin.ts'), this.ensure(skinning, 'vertex', false)]);
      const compute = await Promise.all(code.preskinVariants(draws).map((v) => code.preskinPipeline(device, skinning, v)));
      const computeDesc = (d: PipelineDraw): MeshPipelineDesc => (d.skinned ? {
        ...d.desc, skinning, shadows: true, preskinned: true, influences: 0, vertexLayouts: d.primitive.rigidLayouts, vertexLayoutKey: d.primitive.rigidLayoutKey,
      } : { ...d.desc, skinning, shadows: true });
      const surface = await Promise.all(draws.map((d) => meshPipelines.pipeline(computeDesc(d))));
      const outline = await this.outlines(draws.map(computeDesc));
      const casters = await Promise.all(draws.map((d) => (d.skinned
        ? casterPipelines.pipeline(d.desc, skinning, PRESKINNED_ENTRY_POINT, d.primitive.rigidLayouts)
        : casterPipelines.pipeline(d.desc, skinning))));
      const transmission = await this.transmissionPipelines(computeDesc);
      this.onComputeBuilt(code);
      return { surface, outline, casters, compute, transmission };
    }
    const surface = await Promise.all(draws.map((d) => meshPipelines.pipeline({ ...d.desc, skinning, shadows })));
    const outline = await this.outlines(draws.map((d) => ({ ...d.desc, skinning, shadows })));
    const casters = shadows ? await Promise.all(draws.map((d) => casterPipelines.pipeline(d.desc, skinning))) : [];
    const transmission = await this.transmissionPipelines((d) => ({ ...d.desc, skinning, shadows }));
    return { surface, outline, casters, compute: [], transmission };
  }

  /** The outline pipeline of each shaded description whose material draws one, else null. */
  private outlines(descs: readonly MeshPipelineDesc[]): Promise<(GPURenderPipeline | null)[]> {
    return Promise.all(descs.map((desc) => (materialPathOf(desc).outlines(materialFeaturesOf(desc))
      ? this.ctx.meshPipelines.pipeline(meshVariantDesc(desc, 'outline')) : null)));
  }

  /** The transmission pass's pipelines (`surface`: a draw's lit pipeline's description), when a draw transmits light. */
  private transmissionPipelines(surface: (d: PipelineDraw) => MeshPipelineDesc): Promise<(GPURenderPipeline | null)[]> {
    const draws = this.draws;
    if (!draws.some((d) => transmitsLight(d.desc))) return Promise.resolve([]);
    return Promise.all(draws.map((d) => (d.desc.alphaMode === 'BLEND' || transmitsLight(d.desc)
      ? null
      : this.ctx.meshPipelines.pipeline({ ...surface(d), colorFormat: TRANSMISSION_FORMAT, transmissionSource: true }))));
  }
}
