// KHR_materials_iridescence: the Fresnel of a thin dielectric film over the base, after Belcour
// and Barla, "A Practical Extension to Microfacet Theory for the Modeling of Varying
// Iridescence" (2017), as the extension and the Khronos sample viewer evaluate it: one
// bounce's Fresnel at each interface (Schlick), the phase of the film's optical path
// difference, and the interference integrated against the eye's colour matching functions
// (their Gaussian fits in Fourier space), converted from XYZ to linear Rec. 709.

// CIE XYZ → linear Rec. 709 (sRGB primaries, D65), column-major.
const XYZ_TO_REC709: mat3x3f = mat3x3f(
  vec3f(3.2404542, -0.9692660, 0.0556434),
  vec3f(-1.5371385, 1.8760108, -0.2040259),
  vec3f(-0.4985314, 0.0415560, 1.0572252),
);

// The colour matching functions' response to an optical path difference `opd` (nm) with a
// phase shift per channel: Belcour and Barla's three Gaussians (and a fourth for X's second
// lobe), Fourier-transformed, normalised by Y's integral.
fn iridescenceSensitivity(opd: f32, shift: vec3f) -> vec3f {
  let phase = 2.0 * PI * opd * 1.0e-9;
  let val = vec3f(5.4856e-13, 4.4201e-13, 5.2481e-13);
  let pos = vec3f(1.6810e+06, 1.7953e+06, 2.2084e+06);
  let spread = vec3f(4.3278e+09, 9.3046e+09, 6.6121e+09);
  var xyz = val * sqrt(2.0 * PI * spread) * cos(pos * phase + shift) * exp(-(phase * phase) * spread);
  xyz.x += 9.7470e-14 * sqrt(2.0 * PI * 4.5282e+09) * cos(2.2399e+06 * phase + shift.x) * exp(-4.5282e+09 * phase * phase);
  return XYZ_TO_REC709 * (xyz / 1.0685e-7);
}

fn f0ToIor(f0: vec3f) -> vec3f {
  let s = sqrt(f0);
  return (vec3f(1.0) + s) / (vec3f(1.0) - s);
}

fn iorToF0Between(transmitted: vec3f, incident: f32) -> vec3f {
  let r = (transmitted - vec3f(incident)) / (transmitted + vec3f(incident));
  return r * r;
}

// The reflectance of air / film (index filmIor, thickness nm) / base (reflectance baseF0 at
// normal incidence) seen at cos θ = cosTheta1.
fn evalIridescence(filmIorIn: f32, cosTheta1: f32, thickness: f32, baseF0: vec3f) -> vec3f {
  let outsideIor = 1.0;
  // A vanishing film takes the outside's index, so the result fades to the base's Fresnel.
  let filmIor = mix(outsideIor, filmIorIn, smoothstep(0.0, 0.03, thickness));
  // Snell's law into the film.
  let sinTheta2Sq = (outsideIor / filmIor) * (outsideIor / filmIor) * (1.0 - cosTheta1 * cosTheta1);
  let cosTheta2Sq = 1.0 - sinTheta2Sq;
  if (cosTheta2Sq < 0.0) {
    // Total internal reflection.
    return vec3f(1.0);
  }
  let cosTheta2 = sqrt(cosTheta2Sq);

  // First interface: air into the film.
  let r0 = iorToF0Between(vec3f(filmIor), outsideIor).x;
  let r12 = r0 + (1.0 - r0) * pow(clamp(1.0 - cosTheta1, 0.0, 1.0), 5.0);
  let t121 = 1.0 - r12;
  let phi12 = select(0.0, PI, filmIor < outsideIor);
  let phi21 = PI - phi12;

  // Second interface: the film onto the base.
  let baseIor = f0ToIor(clamp(baseF0, vec3f(0.0), vec3f(0.9999)));
  let r1 = iorToF0Between(baseIor, filmIor);
  let r23 = r1 + (vec3f(1.0) - r1) * pow(clamp(1.0 - cosTheta2, 0.0, 1.0), 5.0);
  let phi23 = select(vec3f(0.0), vec3f(PI), baseIor < vec3f(filmIor));

  // Phase from the optical path difference.
  let opd = 2.0 * filmIor * thickness * cosTheta2;
  let phi = vec3f(phi21) + phi23;

  // The airy sum: the first reflection, then pairs of interfering reflections.
  let r123 = clamp(r12 * r23, vec3f(1e-5), vec3f(0.9999));
  let rr = sqrt(r123);
  let rs = (t121 * t121) * r23 / (vec3f(1.0) - r123);
  var intensity = vec3f(r12) + rs;
  var cm = rs - vec3f(t121);
  for (var m = 1; m <= 2; m++) {
    cm *= rr;
    intensity += cm * 2.0 * iridescenceSensitivity(f32(m) * opd, f32(m) * phi);
  }
  // Colours outside the gamut come out negative.
  return max(intensity, vec3f(0.0));
}
