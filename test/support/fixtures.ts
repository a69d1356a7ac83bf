import { mat4, quat } from 'wgpu-matrix';
import { GltfBuilder, type AnimationTrack, type ComponentArray, type InterpolationName } from '../../src/gltf/builder.ts';

/**
 * A small skinned chain built in code, for what no shared asset has. Four joints up
 * the y axis (J0 at the origin, each next one 0.5 higher), a strip of 2×9 vertices
 * from y=0 to y=2 with normals +z and tangents +x, and one clip bending the chain.
 * Options switch on one encoding or structure at a time.
 */
export interface ChainOptions {
  weights?: 'float' | 'u8' | 'u16';
  joints?: 'u8' | 'u16';
  /** Spread each vertex over 8 influences (JOINTS_1/WEIGHTS_1). */
  eightInfluences?: boolean;
  tangents?: boolean;
  /** Non-uniform scale keyed on J1 (x stretched, z squashed). */
  nonUniformScale?: boolean;
  interpolation?: InterpolationName;
  /** POSITION interleaved with NORMAL in one bufferView. */
  interleaved?: boolean;
  /** POSITION as a sparse accessor over a base (two vertices displaced). */
  sparsePositions?: boolean;
  /** List skin joints children-first. */
  childrenFirst?: boolean;
  /** Give the skinned mesh node (and a parent of it) a transform, which must not move the vertices. */
  transformedMeshNode?: boolean;
}

export const CHAIN_JOINTS = 4;
export const CHAIN_VERTICES = 18;
export const CHAIN_KEY_TIMES = Float32Array.of(0, 1, 2);

/** Rotation keys of joint j (about z, then x), and scale keys of J1 when non-uniform. */
export function chainRotationKeys(j: number): number[][] {
  return [0, 1, 2].map((k) => Array.from(quat.normalize(quat.mul(quat.fromAxisAngle([0, 0, 1], 0.35 * k * (j + 1)), quat.fromAxisAngle([1, 0, 0], 0.2 * k)))));
}
export const CHAIN_SCALE_KEYS = [[1, 1, 1], [1.6, 1, 0.5], [0.8, 1.3, 1.2]];

export function chainRestPositions(sparse = false): Float32Array {
  const p = new Float32Array(CHAIN_VERTICES * 3);
  for (let row = 0; row < 9; row++) {
    for (let side = 0; side < 2; side++) {
      const v = row * 2 + side;
      p[v * 3] = side === 0 ? -0.2 : 0.2;
      p[v * 3 + 1] = row * 0.25;
      p[v * 3 + 2] = 0.05 * side;
    }
  }
  if (sparse) {
    p[5 * 3 + 2] = 0.3;
    p[11 * 3] = -0.4;
  }
  return p;
}

/** Unit normals leaning a different way at every vertex, so every matrix element matters. */
export function chainNormals(): Float32Array {
  const n = new Float32Array(CHAIN_VERTICES * 3);
  for (let v = 0; v < CHAIN_VERTICES; v++) {
    const x = Math.sin(v * 0.9), y = Math.cos(v * 1.3) * 0.5, z = 1;
    const len = Math.hypot(x, y, z);
    n.set([x / len, y / len, z / len], v * 3);
  }
  return n;
}

/** Unit tangents orthogonal-ish to nothing in particular, w alternating ±1 (handedness). */
export function chainTangents(): Float32Array {
  const t = new Float32Array(CHAIN_VERTICES * 4);
  for (let v = 0; v < CHAIN_VERTICES; v++) {
    const x = 1, y = Math.sin(v * 0.7) * 0.6, z = Math.cos(v * 0.4) * 0.4;
    const len = Math.hypot(x, y, z);
    t.set([x / len, y / len, z / len, v % 2 ? -1 : 1], v * 4);
  }
  return t;
}

/** Weights over 8 slots per vertex (slots 4..7 unused unless eightInfluences); joints per slot. */
export function chainInfluences(eight: boolean): { joints: number[]; weights: number[] } {
  const joints: number[] = [], weights: number[] = [];
  for (let v = 0; v < CHAIN_VERTICES; v++) {
    const y = Math.floor(v / 2) * 0.25;
    // Tent weights around each joint's height; normalised below.
    const raw = [0, 1, 2, 3].map((j) => Math.max(0, 1 - Math.abs(y - j * 0.5) / 0.75));
    const sum = raw.reduce((a, b) => a + b, 0);
    const w = raw.map((x) => x / sum);
    if (eight) {
      // Split every weight across both sets: same joints again in JOINTS_1.
      joints.push(0, 1, 2, 3, 3, 2, 1, 0);
      weights.push(w[0] * 0.5, w[1] * 0.7, w[2] * 0.4, w[3] * 0.5, w[3] * 0.5, w[2] * 0.6, w[1] * 0.3, w[0] * 0.5);
    } else {
      joints.push(0, 1, 2, 3, 0, 0, 0, 0);
      weights.push(w[0], w[1], w[2], w[3], 0, 0, 0, 0);
    }
  }
  return { joints, weights };
}

/** The mesh node's (and its parent's) transform in the transformedMeshNode case. */
export const MESH_NODE_TRANSFORM = { translation: [3, -2, 1], rotation: Array.from(quat.fromAxisAngle([0, 1, 0], 0.7)), scale: [2, 2, 2] };

export function buildChain(o: ChainOptions = {}): Uint8Array {
  const b = new GltfBuilder('test fixture');
  const positions = chainRestPositions(o.sparsePositions);
  const normals = chainNormals();
  const tangents = chainTangents();
  const attributes: Record<string, number> = {};
  if (o.interleaved) {
    const [pos, nrm] = b.addInterleaved([{ data: positions, type: 'VEC3', minMax: true }, { data: normals, type: 'VEC3' }]);
    attributes.POSITION = pos;
    attributes.NORMAL = nrm;
  } else if (o.sparsePositions) {
    const base = chainRestPositions(false);
    attributes.POSITION = b.addSparseAccessor(base, 'VEC3', {
      indices: Uint16Array.of(5, 11),
      values: Float32Array.of(positions[15], positions[16], positions[17], positions[33], positions[34], positions[35]),
    }, { minMax: true });
    attributes.NORMAL = b.addAccessor(normals, 'VEC3');
  } else {
    attributes.POSITION = b.addAccessor(positions, 'VEC3', { minMax: true });
    attributes.NORMAL = b.addAccessor(normals, 'VEC3');
  }
  if (o.tangents) attributes.TANGENT = b.addAccessor(tangents, 'VEC4');

  const { joints, weights } = chainInfluences(!!o.eightInfluences);
  // JOINTS_n index the skin's joint list, which is reversed in the childrenFirst case.
  const skinJoints = o.childrenFirst ? [3, 2, 1, 0] : [0, 1, 2, 3];
  const skinIndexOf = (j: number) => skinJoints.indexOf(j);
  const sets = o.eightInfluences ? 2 : 1;
  for (let set = 0; set < sets; set++) {
    const js: number[] = [], ws: number[] = [];
    for (let v = 0; v < CHAIN_VERTICES; v++) {
      for (let c = 0; c < 4; c++) {
        js.push(skinIndexOf(joints[v * 8 + set * 4 + c]));
        ws.push(weights[v * 8 + set * 4 + c]);
      }
    }
    const jointArray: ComponentArray = o.joints === 'u8' ? Uint8Array.from(js) : Uint16Array.from(js);
    attributes[`JOINTS_${set}`] = b.addAccessor(jointArray, 'VEC4');
    let weightArray: ComponentArray = Float32Array.from(ws);
    if (o.weights === 'u8') weightArray = Uint8Array.from(ws.map((w) => Math.round(w * 255)));
    if (o.weights === 'u16') weightArray = Uint16Array.from(ws.map((w) => Math.round(w * 65535)));
    attributes[`WEIGHTS_${set}`] = b.addAccessor(weightArray, 'VEC4', { normalized: o.weights === 'u8' || o.weights === 'u16' });
  }
  const indices: number[] = [];
  for (let row = 0; row < 8; row++) {
    const a = row * 2;
    indices.push(a, a + 1, a + 3, a, a + 3, a + 2);
  }
  const mesh = b.addMesh({ primitives: [{ attributes, indices: b.addAccessor(Uint16Array.from(indices), 'SCALAR') }] });

  // Joint nodes; node indices are laid out so that children come first when asked.
  const order = o.childrenFirst ? [3, 2, 1, 0] : [0, 1, 2, 3];
  const nodeOfJoint: number[] = [];
  const firstJointNode = b.json.nodes.length;
  order.forEach((j, i) => (nodeOfJoint[j] = firstJointNode + i));
  for (const j of order) {
    b.addNode({
      name: `J${j}`,
      translation: j === 0 ? [0, 0, 0] : [0, 0.5, 0],
      ...(j < CHAIN_JOINTS - 1 ? { children: [nodeOfJoint[j + 1]] } : {}),
    });
  }
  // Inverse bind matrices: the joints' rest globals are translations by 0.5·j in y.
  const ibm = new Float32Array(CHAIN_JOINTS * 16);
  skinJoints.forEach((j, i) => ibm.set(mat4.translation([0, -0.5 * j, 0]), i * 16));
  const skin = b.addSkin({ joints: skinJoints.map((j) => nodeOfJoint[j]), inverseBindMatrices: b.addAccessor(ibm, 'MAT4') });

  const meshNode = b.addNode({ name: 'mesh', mesh, skin, ...(o.transformedMeshNode ? MESH_NODE_TRANSFORM : {}) });
  const roots = [nodeOfJoint[0]];
  if (o.transformedMeshNode) {
    roots.push(b.addNode({ name: 'mesh parent', translation: [-5, 0, 0], scale: [0.5, 3, 1], children: [meshNode] }));
  } else {
    roots.push(meshNode);
  }
  b.addScene({ nodes: roots });

  const interpolation = o.interpolation ?? 'LINEAR';
  const tracks: AnimationTrack[] = [];
  for (let j = 0; j < CHAIN_JOINTS; j++) {
    const keys = chainRotationKeys(j);
    tracks.push({ node: nodeOfJoint[j], path: 'rotation', input: CHAIN_KEY_TIMES, output: splineOutput(keys, interpolation), interpolation });
  }
  if (o.nonUniformScale) {
    tracks.push({ node: nodeOfJoint[1], path: 'scale', input: CHAIN_KEY_TIMES, output: splineOutput(CHAIN_SCALE_KEYS, interpolation), interpolation });
  }
  b.addAnimationTracks('Bend', tracks);
  return b.toGlb();
}

/** Tangents used for CUBICSPLINE keys: a fixed, non-zero slope so the spline differs from LINEAR. */
export function splineTangent(key: number[], k: number): number[] {
  return key.map((_, i) => 0.1 * (i + 1) * (k % 2 ? -1 : 1));
}

function splineOutput(keys: number[][], interpolation: InterpolationName): Float32Array {
  if (interpolation !== 'CUBICSPLINE') return Float32Array.from(keys.flat());
  return Float32Array.from(keys.flatMap((key, k) => [...splineTangent(key, k), ...key, ...splineTangent(key, k + 1)]));
}

/** One joint at (0, 2, 0) skinning a triangle with two morph targets; a clip keys the weights. */
export function buildMorphedSkin(): Uint8Array {
  const b = new GltfBuilder();
  const joint = b.addNode({ name: 'joint', translation: [0, 2, 0] });
  const attributes = {
    POSITION: b.addAccessor(Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 0), 'VEC3', { minMax: true }),
    NORMAL: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), 'VEC3'),
    TANGENT: b.addAccessor(Float32Array.of(1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1), 'VEC4'),
    JOINTS_0: b.addAccessor(new Uint16Array(12), 'VEC4'),
    WEIGHTS_0: b.addAccessor(Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 'VEC4'),
  };
  const targets: Record<string, number>[] = [
    { POSITION: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 0, 0, 0, 0), 'VEC3', { minMax: true }), NORMAL: b.addAccessor(Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0), 'VEC3') },
    { POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 0, 0, 2, 0, 0, 0), 'VEC3', { minMax: true }), TANGENT: b.addAccessor(Float32Array.of(0, 0, 0, 0, 1, 0, 0, 0, 0), 'VEC3') },
  ];
  const mesh = b.addMesh({ primitives: [{ attributes, targets }], weights: [0.5, 0] });
  // No inverseBindMatrices (identity): the skin moves the vertices up by the joint's 2.
  const meshNode = b.addNode({ mesh, skin: b.addSkin({ joints: [joint] }) });
  b.addScene({ nodes: [joint, meshNode] });
  b.addAnimationTracks('Morph', [{ node: meshNode, path: 'weights', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 1, 0.5) }]);
  return b.toGlb();
}
