/**
 * What the PBR material extensions add to a Material (Material.clearcoat, .specular…), each as
 * its extension defines it, defaults filled in and values clamped into the schema's ranges by
 * the extension's reader (src/gltf/extensions/khr-materials-*.ts). Textures are TextureInfos as
 * the core slots' are; the channel each one is read from is named beside it.
 */
import type { TextureInfo } from './texture-info.ts';

/** A linear RGB colour. */
export type Rgb = readonly [number, number, number];

/** KHR_materials_clearcoat: a second, clear specular layer over the base. */
export interface ClearcoatExtension {
  /** 0…1, × `texture`.r. */
  readonly factor: number;
  readonly texture: TextureInfo | undefined;
  /** Perceptual roughness 0…1, × `roughnessTexture`.g. */
  readonly roughnessFactor: number;
  readonly roughnessTexture: TextureInfo | undefined;
  /** The layer's own normal map (`scale` as a normal texture's); the base's geometric normal without one. */
  readonly normalTexture: TextureInfo | undefined;
}

/** KHR_materials_specular: the dielectric specular's strength and F0 colour. */
export interface SpecularExtension {
  /** 0…1, × `texture`.a. */
  readonly factor: number;
  readonly texture: TextureInfo | undefined;
  /** Linear F0 tint, ≥ 0 (may exceed 1), × `colorTexture`.rgb (sRGB). */
  readonly colorFactor: Rgb;
  readonly colorTexture: TextureInfo | undefined;
}

/** KHR_materials_sheen: a cloth-like retroreflective layer (Charlie distribution). */
export interface SheenExtension {
  /** Linear 0…1, × `colorTexture`.rgb (sRGB); black is no sheen. */
  readonly colorFactor: Rgb;
  readonly colorTexture: TextureInfo | undefined;
  /** 0…1, × `roughnessTexture`.a. */
  readonly roughnessFactor: number;
  readonly roughnessTexture: TextureInfo | undefined;
}

/** KHR_materials_transmission: the share of light passing through the surface (thin, refracting). */
export interface TransmissionExtension {
  /** 0…1, × `texture`.r. */
  readonly factor: number;
  readonly texture: TextureInfo | undefined;
}

/** KHR_materials_volume: the medium under the surface. */
export interface VolumeExtension {
  /** Thickness in the mesh's own units, ≥ 0, × `thicknessTexture`.g. */
  readonly thicknessFactor: number;
  readonly thicknessTexture: TextureInfo | undefined;
  /** Distance (> 0) light travels before it is tinted to `attenuationColor`; Infinity for none. */
  readonly attenuationDistance: number;
  /** Linear 0…1. */
  readonly attenuationColor: Rgb;
}

/** KHR_materials_iridescence: a thin film over the base, shifting hue with angle. */
export interface IridescenceExtension {
  /** 0…1, × `texture`.r. */
  readonly factor: number;
  readonly texture: TextureInfo | undefined;
  /** The film's index of refraction, ≥ 1. */
  readonly ior: number;
  /** Film thickness in nanometres (≥ 0): `thicknessTexture`.g lerps from minimum to maximum; maximum without it. */
  readonly thicknessMinimum: number;
  readonly thicknessMaximum: number;
  readonly thicknessTexture: TextureInfo | undefined;
}

/** KHR_materials_anisotropy: a GGX lobe stretched along a direction in the tangent plane. */
export interface AnisotropyExtension {
  /** 0…1, × `texture`.b. */
  readonly strength: number;
  /** Radians, counter-clockwise from the tangent, applied to `texture`.rg's direction (or +tangent). */
  readonly rotation: number;
  readonly texture: TextureInfo | undefined;
}

/** KHR_materials_diffuse_transmission: diffuse light passing through a thin surface. */
export interface DiffuseTransmissionExtension {
  /** 0…1, × `texture`.a. */
  readonly factor: number;
  readonly texture: TextureInfo | undefined;
  /** Linear 0…1, × `colorTexture`.rgb (sRGB). */
  readonly colorFactor: Rgb;
  readonly colorTexture: TextureInfo | undefined;
}

/** The fields of Material the PBR extensions fill in; absent when the material does not use the extension. */
export interface PbrExtensions {
  readonly clearcoat?: ClearcoatExtension;
  readonly specular?: SpecularExtension;
  /** KHR_materials_ior: ≥ 1, or 0 (Fresnel 1 everywhere). */
  readonly ior?: number;
  readonly sheen?: SheenExtension;
  readonly transmission?: TransmissionExtension;
  readonly volume?: VolumeExtension;
  readonly iridescence?: IridescenceExtension;
  readonly anisotropy?: AnisotropyExtension;
  /** KHR_materials_dispersion: ≥ 0, 20 / Abbe number (0: none). */
  readonly dispersion?: number;
  readonly diffuseTransmission?: DiffuseTransmissionExtension;
}
