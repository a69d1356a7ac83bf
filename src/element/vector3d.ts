/**
 * The value objects <skinned-mesh-viewer> hands to pages, shaped as model-viewer 4.4's
 * `Vector3D`, `Vector2D` and `SphericalPosition`: plain fields a page may change, and a
 * `toString()` that reads them when it is called, so the documented pattern
 * `orbit.theta += d; viewer.cameraOrbit = orbit.toString()` writes the changed value back.
 * Full precision, in the units the attributes parse (`rad`, `m`), so a round trip is exact.
 */

/** A point or size in metres; `toString()` is a `camera-target` / `data-position` value (`1m 2m 3m`). */
export interface Vector3D {
  x: number;
  y: number;
  z: number;
  /** The value as the attribute writes it, in full precision. */
  toString(): string;
}

/** A texture coordinate; `toString()` is `u v`. */
export interface Vector2D {
  u: number;
  v: number;
  /** The value as the attribute writes it (`u v`). */
  toString(): string;
}

/** A camera orbit: radians and metres; `toString()` is a `camera-orbit` value (`0.5rad 1.2rad 3m`). */
export interface SphericalPosition {
  /** Azimuth about +Y (0: looking at the model's front). */
  theta: number;
  /** Polar angle from +Y (π/2: level). */
  phi: number;
  /** Distance from the target. */
  radius: number;
  /** The value as `camera-orbit` writes it (`0.5rad 1.2rad 3m`), in full precision. */
  toString(): string;
}

export function vector3d(x: number, y: number, z: number): Vector3D {
  return { x, y, z, toString(this: Vector3D) { return `${this.x}m ${this.y}m ${this.z}m`; } };
}

export function vector2d(u: number, v: number): Vector2D {
  return { u, v, toString(this: Vector2D) { return `${this.u} ${this.v}`; } };
}

export function sphericalPosition(theta: number, phi: number, radius: number): SphericalPosition {
  return { theta, phi, radius, toString(this: SphericalPosition) { return `${this.theta}rad ${this.phi}rad ${this.radius}m`; } };
}
