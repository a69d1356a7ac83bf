// Nine real spherical harmonics (bands 0–2), Ramamoorthi & Hanrahan, "An Efficient
// Representation for Irradiance Environment Maps" (2001): the mesh shader evaluates the
// stored irradiance on them (shaders/environment-lighting.wgsl). The environment's radiance is
// projected on the same basis on the CPU (src/gpu/environment/sh9.ts, held to these constants
// by test/gpu/environment/sh9.test.ts).

// The basis functions' constants (environment-lighting.wgsl writes the functions out term by term): band 0; band 1; band 2's xy, yz, xz terms, its z² term and its x² − y² term.
const SH_C0: f32 = 0.282095;
const SH_C1: f32 = 0.488603;
const SH_C2_CROSS: f32 = 1.092548;
const SH_C2_ZZ: f32 = 0.315392;
const SH_C2_XX_YY: f32 = 0.546274;
