// The vertex's centre of rotation for centre-of-rotation skinning (skinning.wgsl
// blendCentersOfRotation): every skinned primitive's centres sit back to back in the model's
// `centers` array (xyz per vertex, src/gpu/model/center-buffer.ts), the draw's from its record's
// centerBase. Prepended to the modules that declare `centers` and read draw records
// (mesh.wgsl by src/gpu/pipelines/mesh.ts, preskin.wgsl by src/gpu/draw/preskin.ts).
fn centerOfRotation(record: DrawRecord, vertex: u32) -> vec3f {
  let at = (record.centerBase + vertex) * 3u;
  return vec3f(centers[at], centers[at + 1u], centers[at + 2u]);
}
