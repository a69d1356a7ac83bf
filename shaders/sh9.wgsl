// Nine real spherical harmonics (bands 0–2), Ramamoorthi & Hanrahan, "An Efficient
// Representation for Irradiance Environment Maps" (2001). Used by the environment
// prefilter (shaders/environment.wgsl projects radiance on them) and by the mesh shader
// (shaders/environment-lighting.wgsl evaluates the stored irradiance).

// The basis functions' constants: band 0; band 1; band 2's xy, yz, xz terms, its z² term and its x² − y² term.
const SH_C0: f32 = 0.282095;
const SH_C1: f32 = 0.488603;
const SH_C2_CROSS: f32 = 1.092548;
const SH_C2_ZZ: f32 = 0.315392;
const SH_C2_XX_YY: f32 = 0.546274;

fn shBasis(d: vec3f) -> array<f32, 9> {
  return array<f32, 9>(
    SH_C0,
    SH_C1 * d.y,
    SH_C1 * d.z,
    SH_C1 * d.x,
    SH_C2_CROSS * d.x * d.y,
    SH_C2_CROSS * d.y * d.z,
    SH_C2_ZZ * (3.0 * d.z * d.z - 1.0),
    SH_C2_CROSS * d.x * d.z,
    SH_C2_XX_YY * (d.x * d.x - d.y * d.y),
  );
}

// The clamped-cosine convolution per band divided by π (A0 = π, A1 = 2π/3, A2 = π/4): the
// stored coefficients times the basis give irradiance / π, the radiance a white Lambertian
// surface reflects.
fn shCosineBand(j: u32) -> f32 {
  if (j == 0u) { return 1.0; }
  if (j < 4u) { return 2.0 / 3.0; }
  return 0.25;
}
