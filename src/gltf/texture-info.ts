/** How a material slot references a texture (model.ts re-exports these with the rest of the model). */

export interface TextureInfo {
  readonly index: number;
  readonly texCoord: number;
  /** normalTexture.scale or occlusionTexture.strength; 1 otherwise. */
  readonly scale: number;
  /** KHR_texture_transform, undefined for none. `texCoord` already holds its override. */
  readonly transform?: TextureTransform;
}

/** KHR_texture_transform's parameters: uv' = T(offset) · R(rotation) · S(scale) · uv. */
export interface TextureTransform {
  readonly offset: readonly [number, number];
  /** Radians, counter-clockwise in UV space. */
  readonly rotation: number;
  readonly scale: readonly [number, number];
}

/** A 2D affine UV matrix, column-major 3×2: [m00, m10, m01, m11, offsetU, offsetV]. */
export type UvTransform = readonly [number, number, number, number, number, number];
