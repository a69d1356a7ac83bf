import { loadGltf } from './src/gltf/load.ts';
import { buildBuiltinGlb } from './src/builtin/index.ts';
import { triangleList } from './src/gltf/topology.ts';
import { computeCentersOfRotation } from './src/skin/centers-of-rotation/precompute.ts';
const m = await loadGltf(buildBuiltinGlb('character'), { name: 'c' });
const skinJoints = m.skins[0].joints.length;
let seed = 1; const rnd = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
for (const p of m.meshes.flatMap(x=>x.primitives).filter(p=>p.influences)) {
  const joints = p.joints!.map(() => Math.floor(rnd() * skinJoints));
  const weights = p.weights!.map(() => rnd());
  for (let v=0; v<p.vertexCount; v++){ let s=0; for(let i=0;i<4;i++) s+=weights[v*4+i]; for(let i=0;i<4;i++) weights[v*4+i]/=s; }
  const t0=performance.now();
  const r = computeCentersOfRotation({ ...p, joints, weights, triangles: triangleList(p) });
  console.log(p.vertexCount, (performance.now()-t0)|0, r.ok, r.ok?'':r.reason, JSON.stringify(r.stats));
}
