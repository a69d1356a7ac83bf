// Nine real spherical harmonics (bands 0–2), Ramamoorthi & Hanrahan, "An Efficient
// Representation for Irradiance Environment Maps" (2001). Used by the environment
// prefilter (shaders/environment.wgsl projects radiance on them) and by the mesh shader
// (shaders/environment-lighting.wgsl evaluates the stored irradiance).

fn shBasis(d: vec3f) -> array<f32, 9> {
  return array<f32, 9>(
    0.282095,
    0.488603 * d.y,
    0.488603 * d.z,
    0.488603 * d.x,
    1.092548 * d.x * d.y,
    1.092548 * d.y * d.z,
    0.315392 * (3.0 * d.z * d.z - 1.0),
    1.092548 * d.x * d.z,
    0.546274 * (d.x * d.x - d.y * d.y),
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
