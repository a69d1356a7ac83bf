/**
 * bake — poses a glTF model at a clip time and writes the skinned vertices.
 *
 *   npm run --silent bake -- FILE [--animation INDEX|NAME] [--time SECONDS] [--out OUT] [--backend cpu|gpu]
 *   npm run --silent bake -- --builtin NAME [...]
 *   npx skinned-mesh-bake FILE [...]   (the package's bin: the same flags, output and exit codes)
 *
 * OUT ends in .json (world-space vertex data), .glb (static posed scene) or .obj.
 * Without --out a short summary goes to stdout. Bad input: exit 1, one line on stderr.
 * What the loader repaired or ignored (model.warnings): one `bake: warning: PATH: MESSAGE` line each on stderr.
 * --backend gpu skins with the Renderer's compute skinning pass through WebGPU in Node (src/bake/gpu-bake.ts);
 * the output formats are the same, values in float32 precision.
 * --skinning dual-quaternion blends joints by dual quaternions (src/skin/dqs.ts, and the
 * same WGSL family on --backend gpu) instead of linearly; --skinning center-of-rotation by
 * optimized centres of rotation (src/skin/cor.ts; the centres from the file's
 * _CENTER_OF_ROTATION or computed first); default linear.
 * --blend CLIP --weight W [--blend-time SECONDS] poses a blend of the main clip at --time and
 * CLIP at --blend-time (default: --time), W on CLIP; the output formats are unchanged.
 * --animations-from LIBRARY makes --animation (and --blend) name LIBRARY's clips, retargeted onto
 * the model (src/anim/retarget); --joint-map MAP.json gives target → source joint names for it.
 * --spring-steps N --dt S (VRM) simulates the spring bones deterministically: at rest at clip time
 * T − N·S, then N fixed steps of S seconds, the clip sampled at each step's time, ending at T
 * (--time); without it the springs stay at rest. VRM node constraints are always applied.
 * --expression NAME:WEIGHT (VRM, repeatable) poses with that expression weight (0–1).
 * --write-centers OUT.glb poses nothing: it writes a copy of the file (one GLB) with every skinned
 * primitive's centres of rotation as its `_CENTER_OF_ROTATION` attribute (src/bake/write-centers.ts),
 * so pages skip that precomputation; it takes no pose or output option.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { bakeModel, type BakeOptions, type BakeResult } from '../bake/bake.ts';
import { bakeToJson } from '../bake/json.ts';
import { bakeToObj } from '../bake/obj.ts';
import { bakeToGlb } from '../bake/glb.ts';
import { buildBuiltinGlb, builtinModelNames } from '../builtin/index.ts';
import { loadGltf } from '../gltf/load.ts';
import { asSkinningMethod, methodChoices, type SkinningMethod } from '../anim/skinning-method.ts';
import { modelCentersHere } from '../skin/centers-of-rotation/centers.ts';
import type { Model } from '../gltf/model.ts';
import { loadBesideFile, loadGltfFile, namingFile, readBesideFile } from './load-file.ts';
import { writeCentersGlb, type WrittenCenters } from '../bake/write-centers.ts';
import type { GltfWarning } from '../gltf/errors.ts';
import { loadAnimationLibrary, type AnimationLibrary } from '../anim/retarget/animation-library.ts';
import { retargetClips } from '../anim/retarget/retarget.ts';
import { addClips } from '../anim/retarget/add-clips.ts';
import { MAX_SPRING_STEPS } from '../bake/vrm-bake.ts';

/** The command's name in the repository (`npm run bake`), and where it cannot tell how it was run. */
const REPOSITORY_COMMAND = 'bake';

/** The usage text, naming the command as the user ran it (commandName). */
export function bakeUsage(command = REPOSITORY_COMMAND): string {
  return `usage: ${command} (FILE | --builtin NAME) [--animation INDEX|NAME] [--time SECONDS] [--out OUT.json|OUT.glb|OUT.obj] [--backend cpu|gpu] [--skinning linear|dual-quaternion|center-of-rotation] [--blend INDEX|NAME --weight W [--blend-time SECONDS]] [--animations-from LIBRARY [--joint-map MAP.json]] [--spring-steps N --dt S] [--expression NAME:WEIGHT ...] [--verbose]\n       ${command} (FILE | --builtin NAME) --write-centers OUT.glb`;
}

/**
 * The command the user ran, from the script Node runs (`process.argv[1]`): the installed bin's
 * name (`npx skinned-mesh-bake` runs node_modules/.bin/skinned-mesh-bake; a Windows shim or
 * `node …/skinned-mesh-bake.js` runs the built file), or `bake` when that is the TypeScript source
 * (`npm run bake`, through tsx). Only usage and --help say it: error lines keep their `bake: `
 * prefix, which tools read.
 */
export function commandName(script: string | undefined): string {
  if (script === undefined || script.endsWith('.ts')) return REPOSITORY_COMMAND;
  return basename(script).replace(/\.[cm]?js$/, '') || REPOSITORY_COMMAND;
}

export interface BakeArgs {
  file?: string;
  builtin?: string;
  animation?: string;
  time: number;
  /** Second clip to blend in (index or name), with `weight` on it at `blendTime` (default `time`). */
  blend?: string;
  weight?: number;
  blendTime?: number;
  out?: string;
  verbose: boolean;
  /** Where the vertices are skinned; default cpu. */
  backend: 'cpu' | 'gpu';
  /** How vertices blend their joints; default linear. */
  skinning: SkinningMethod;
  /** A glTF whose clips `animation`/`blend` name, retargeted onto the model. */
  animationsFrom?: string;
  /** JSON file of target joint name → source joint name for `animationsFrom`. */
  jointMap?: string;
  /** Write a copy of the file with centres of rotation here (and nothing else). */
  writeCenters?: string;
  /** VRM spring bones: steps and their length in seconds. */
  springSteps?: number;
  dt?: number;
  /** VRM expression weights. */
  expressions: { name: string; weight: number }[];
}

/** The options that pose or write a bake, which --write-centers does not take. */
const POSE_OPTIONS = ['--animation', '--time', '--blend', '--weight', '--blend-time', '--out', '--backend', '--skinning', '--animations-from', '--joint-map', '--spring-steps', '--dt', '--expression'];

class UsageError extends Error {}
/** --help or -h: the usage goes to stdout, and the command succeeds. */
class HelpRequested extends UsageError {}

/** The command line as BakeArgs; a mistake throws one line, ending in the usage (named `command`) where it helps. */
export function parseBakeArgs(argv: readonly string[], command = REPOSITORY_COMMAND): BakeArgs {
  const args: BakeArgs = { time: 0, verbose: false, backend: 'cpu', skinning: 'linear', expressions: [] };
  const given = new Set<string>();
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || (v.startsWith('--') && v.length > 2)) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    given.add(a);
    switch (a) {
      case '--write-centers': args.writeCenters = value(i, a); i++; break;
      case '--animation': args.animation = value(i, a); i++; break;
      case '--blend': args.blend = value(i, a); i++; break;
      case '--weight': {
        const v = value(i, a);
        const w = Number(v);
        if (v.trim() === '' || !(w >= 0 && w <= 1)) throw new UsageError(`--weight "${v}" must be a number in [0, 1]`);
        args.weight = w;
        i++;
        break;
      }
      case '--blend-time': {
        const v = value(i, a);
        const t = Number(v);
        if (v.trim() === '' || !Number.isFinite(t)) throw new UsageError(`--blend-time "${v}" is not a number of seconds`);
        args.blendTime = t;
        i++;
        break;
      }
      case '--time': {
        const v = value(i, a);
        const t = Number(v);
        if (v.trim() === '' || !Number.isFinite(t)) throw new UsageError(`--time "${v}" is not a number of seconds`);
        args.time = t;
        i++;
        break;
      }
      case '--out': args.out = value(i, a); i++; break;
      case '--spring-steps': {
        const v = value(i, a);
        const n = Number(v);
        if (!/^\d+$/.test(v.trim()) || n > MAX_SPRING_STEPS) throw new UsageError(`--spring-steps "${v}" must be a whole number from 0 to ${MAX_SPRING_STEPS}`);
        args.springSteps = n;
        i++;
        break;
      }
      case '--dt': {
        const v = value(i, a);
        const t = Number(v);
        if (v.trim() === '' || !(t > 0 && t <= 1)) throw new UsageError(`--dt "${v}" must be a number of seconds in (0, 1]`);
        args.dt = t;
        i++;
        break;
      }
      case '--expression': {
        const v = value(i, a);
        const m = /^(.+):([^:]+)$/.exec(v);
        const w = m ? Number(m[2]) : NaN;
        if (!m || m[2].trim() === '' || !(w >= 0 && w <= 1)) throw new UsageError(`--expression "${v}" must be NAME:WEIGHT with WEIGHT in [0, 1]`);
        args.expressions.push({ name: m[1], weight: w });
        i++;
        break;
      }
      case '--animations-from': args.animationsFrom = value(i, a); i++; break;
      case '--joint-map': args.jointMap = value(i, a); i++; break;
      case '--builtin': args.builtin = value(i, a); i++; break;
      case '--verbose': args.verbose = true; break;
      case '--backend': {
        const v = value(i, a);
        if (v !== 'cpu' && v !== 'gpu') throw new UsageError(`--backend "${v}" must be cpu or gpu`);
        args.backend = v;
        i++;
        break;
      }
      case '--skinning': {
        const v = value(i, a);
        const method = asSkinningMethod(v);
        if (!method) throw new UsageError(`--skinning "${v}" must be ${methodChoices()}`);
        args.skinning = method;
        i++;
        break;
      }
      case '--help': case '-h': throw new HelpRequested(bakeUsage(command));
      default:
        if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
        if (args.file !== undefined) throw new UsageError(`only one FILE may be given (got "${args.file}" and "${a}")`);
        args.file = a;
    }
  }
  if (args.file === undefined && args.builtin === undefined) throw new UsageError(`no FILE given; ${bakeUsage(command)}`);
  if (args.file !== undefined && args.builtin !== undefined) throw new UsageError('give either FILE or --builtin NAME, not both');
  if (args.blend === undefined && (args.weight !== undefined || args.blendTime !== undefined)) {
    throw new UsageError(`${args.weight !== undefined ? '--weight' : '--blend-time'} needs --blend INDEX|NAME`);
  }
  if (args.jointMap !== undefined && args.animationsFrom === undefined) throw new UsageError('--joint-map needs --animations-from LIBRARY');
  if (args.springSteps !== undefined && args.dt === undefined) throw new UsageError('--spring-steps needs --dt S (the seconds of one step)');
  if (args.dt !== undefined && args.springSteps === undefined) throw new UsageError('--dt needs --spring-steps N');
  if (args.blend !== undefined && args.weight === undefined) throw new UsageError('--blend needs --weight W (0 = the main clip, 1 = the blended clip)');
  if (args.writeCenters !== undefined) {
    if (extname(args.writeCenters).toLowerCase() !== '.glb') throw new UsageError(`--write-centers "${args.writeCenters}" must end in .glb`);
    const clash = POSE_OPTIONS.find((o) => given.has(o));
    if (clash) throw new UsageError(`--write-centers writes a copy of the file and poses nothing; it takes no ${clash}`);
  }
  if (args.out !== undefined && !['.json', '.glb', '.obj'].includes(extname(args.out).toLowerCase())) {
    throw new UsageError(`--out "${args.out}" must end in .json, .glb or .obj`);
  }
  return args;
}

function blendOption(args: BakeArgs): BakeOptions['blend'] {
  return args.blend === undefined ? undefined : { animation: args.blend, weight: args.weight!, time: args.blendTime };
}

async function loadModel(args: BakeArgs): Promise<Model> {
  if (args.builtin !== undefined) {
    if (!builtinModelNames().includes(args.builtin)) {
      throw new Error(`no built-in model "${args.builtin}"; choose one of: ${builtinModelNames().join(', ')}`);
    }
    return loadGltf(buildBuiltinGlb(args.builtin), { name: `builtin:${args.builtin}` });
  }
  return loadGltfFile(args.file!);
}

function summary(model: Model, result: BakeResult): string {
  const clip = result.animation
    ? `animation ${result.animation.index}${result.animation.name ? ` "${result.animation.name}"` : ''} at t=${result.time}s`
    : 'rest pose (no animations)';
  const lines = [`${result.asset}: ${clip}; ${model.skins.length} skin(s), ${model.animations.length} clip(s), ${result.primitives.length} skinned primitive(s)`];
  for (const p of result.primitives) {
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.positions.length; i++) {
      const c = i % 3;
      if (p.positions[i] < min[c]) min[c] = p.positions[i];
      if (p.positions[i] > max[c]) max[c] = p.positions[i];
    }
    const f = (v: number[]): string => v.map((x) => x.toFixed(3)).join(', ');
    lines.push(`  node ${p.node} mesh ${p.mesh} primitive ${p.primitive}: ${p.vertexCount} vertices, world bounds [${f(min)}] .. [${f(max)}]`);
  }
  return lines.join('\n') + '\n';
}

export async function runBake(argv: readonly string[], cwd = process.env.INIT_CWD ?? process.cwd(), command = REPOSITORY_COMMAND): Promise<void> {
  // `npm run` starts us in the package folder; paths are meant relative to where the user typed.
  const parsed = parseBakeArgs(argv, command);
  const args: BakeArgs = {
    ...parsed,
    file: parsed.file === undefined ? undefined : resolve(cwd, parsed.file),
    out: parsed.out === undefined ? undefined : resolve(cwd, parsed.out),
    animationsFrom: parsed.animationsFrom === undefined ? undefined : resolve(cwd, parsed.animationsFrom),
    jointMap: parsed.jointMap === undefined ? undefined : resolve(cwd, parsed.jointMap),
    writeCenters: parsed.writeCenters === undefined ? undefined : resolve(cwd, parsed.writeCenters),
  };
  if (args.writeCenters !== undefined) {
    await writeCenters(args, args.writeCenters);
    return;
  }
  const loaded = await loadModel(args);
  const warnings: string[] = loaded.warnings.map((w) => `${w.path}: ${w.message}`);
  const model = args.animationsFrom === undefined ? loaded : await retargetedModel(loaded, args.animationsFrom, args.jointMap, warnings);
  if (args.springSteps !== undefined && !model.vrm?.springBones) warnings.push(`--spring-steps: ${model.name} has no spring bones; nothing to simulate`);
  const options: BakeOptions = {
    animation: args.animation, time: args.time, skinning: args.skinning, blend: blendOption(args),
    ...(args.springSteps !== undefined ? { springSteps: { steps: args.springSteps, dt: args.dt! } } : {}),
    ...(args.expressions.length > 0 ? { expressions: args.expressions } : {}),
  };
  // Centres first, so a primitive over the precomputation's budget is a warning line (it then skins linearly).
  if (args.skinning === 'center-of-rotation') modelCentersHere(model, (w) => warnings.push(`${w.path}: ${w.message}`));
  const result = args.backend === 'gpu' ? await bakeOnGpu(model, options) : bakeModel(model, options);
  // What the loader repaired or ignored goes to stderr whatever the output, so stdout stays the bake's;
  // after the bake, so that a failed one still prints its one error line alone.
  for (const w of warnings) process.stderr.write(`bake: warning: ${w}\n`);
  if (args.out === undefined) {
    process.stdout.write(summary(model, result));
    return;
  }
  const ext = extname(args.out).toLowerCase();
  const data = ext === '.json' ? bakeToJson(result) : ext === '.obj' ? bakeToObj(model, result) : bakeToGlb(model, result);
  await writeFile(args.out, data);
}

/** --write-centers: the file (or built-in model) copied with its centres of rotation; what was repaired or skipped goes to stderr. */
async function writeCenters(args: BakeArgs, out: string): Promise<void> {
  let written: WrittenCenters;
  let loadWarnings: readonly GltfWarning[];
  if (args.builtin !== undefined) {
    const model = await loadModel(args);
    loadWarnings = model.warnings;
    written = await writeCentersGlb(buildBuiltinGlb(args.builtin), model);
  } else {
    const { bytes, options } = await readBesideFile(args.file!);
    const model = await namingFile(args.file!, loadGltf(bytes, options));
    loadWarnings = model.warnings;
    written = await writeCentersGlb(bytes, model, options);
  }
  for (const w of [...loadWarnings, ...written.warnings]) process.stderr.write(`bake: warning: ${w.path}: ${w.message}\n`);
  await writeFile(out, written.glb);
}

/** `model` with its animations replaced by LIBRARY's clips retargeted onto it; what retargeting skipped goes to `warnings`. */
async function retargetedModel(model: Model, libraryPath: string, jointMapPath: string | undefined, warnings: string[]): Promise<Model> {
  const library = await loadLibraryFile(libraryPath);
  let jointMap: Record<string, string> | undefined;
  if (jointMapPath !== undefined) {
    const text = await readFile(jointMapPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new Error(e.code === 'ENOENT' ? `${jointMapPath}: no such file` : `${jointMapPath}: cannot read (${e.message})`);
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new Error(`${jointMapPath}: not JSON (${(e as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
      throw new Error(`${jointMapPath}: must be a JSON object of target joint name → source joint name`);
    }
    jointMap = parsed as Record<string, string>;
  }
  const result = retargetClips(library.clips, library, model, { jointMap });
  const from = `animations-from ${basename(libraryPath)}`;
  // Only what the loader said about the clips: the library's meshes are not baked.
  for (const w of library.model.warnings) if (w.path.startsWith('animations')) warnings.push(`${from}: ${w.path}: ${w.message}`);
  for (const w of result.warnings) warnings.push(`${from}: ${w}`);
  if (result.unmapped.length > 0) warnings.push(`${from}: ${result.unmapped.length} joint(s) have no source joint and keep their rest pose: ${result.unmapped.join(', ')}`);
  return addClips({ ...model, animations: [] }, result.clips, basename(libraryPath));
}

function loadLibraryFile(path: string): Promise<AnimationLibrary> {
  return loadBesideFile(path, loadAnimationLibrary);
}

/** Loaded only for --backend gpu, so the CPU path never touches WebGPU. Throws one clear line when WebGPU is unavailable. */
async function bakeOnGpu(model: Model, options: BakeOptions): Promise<BakeResult> {
  const [{ withNodeDevice }, { bakeModelGpu }] = await Promise.all([import('../gpu/device/node-device.ts'), import('../bake/gpu-bake.ts')]);
  return withNodeDevice((device) => bakeModelGpu(device, model, options), { label: 'bake' });
}

/**
 * The command: runs `runBake` on the process's arguments; a failure is one line on stderr and exit
 * code 1. Usage and --help name the command as run (commandName).
 */
export function main(): void {
  const argv = process.argv.slice(2);
  runBake(argv, undefined, commandName(process.argv[1])).catch((e: unknown) => {
    const err = e as Error;
    if (err instanceof HelpRequested) {
      process.stdout.write(err.message + '\n');
      return;
    }
    process.stderr.write(`bake: ${err.message.split('\n')[0]}\n`);
    if (argv.includes('--verbose') && err.stack) process.stderr.write(err.stack + '\n');
    process.exitCode = 1;
  });
}

