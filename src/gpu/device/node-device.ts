/**
 * A WebGPU device inside Node, from the `webgpu` npm package (Dawn's dawn.node), for
 * the bake CLI and the GPU tests. The package is imported dynamically (through a
 * variable, so bundlers do not follow it): browser code never pulls it in.
 *
 * Dawn needs a Vulkan driver. On machines without a GPU that is SwiftShader, whose ICD
 * JSON ships with Debian's chromium package; when neither VK_ICD_FILENAMES nor
 * VK_DRIVER_FILES is set and that file exists, it is used.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { optionalLimits, TEXTURE_COMPRESSION_FEATURES } from './device.ts';

/** SwiftShader's Vulkan ICD as installed by Debian's `chromium` package. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

const WEBGPU_PACKAGE = 'webgpu';

/** WebGPU cannot be used in this process; the message says what to install or set. */
export class WebGpuUnavailableError extends Error {
  override name = 'WebGpuUnavailableError';
}

export interface NodeDeviceOptions {
  /** Device label (every error message Dawn prints names it). */
  readonly label?: string;
  /** Called for every error no error scope caught; default: one line on stderr. */
  readonly onUncapturedError?: (error: GPUError) => void;
  /** Called when the device is lost for any reason but `destroy()`; default: one line on stderr. */
  readonly onLost?: (info: GPUDeviceLostInfo) => void;
  /** Ask for 'timestamp-query' when the adapter has it (GPU frame times); default false in Node. */
  readonly timestampQuery?: boolean;
}

/**
 * Creates a labelled device on the first adapter Dawn finds. Throws WebGpuUnavailableError
 * naming the missing piece (the npm package, the Vulkan loader, a Vulkan driver, an adapter).
 * Call `device.destroy()` when done.
 */
export async function createNodeDevice(options: NodeDeviceOptions = {}): Promise<GPUDevice> {
  const label = options.label ?? 'node device';
  const icd = useSwiftShaderByDefault();
  const webgpu = await importWebGpu();
  // The WebGPU constants (GPUBufferUsage, GPUShaderStage, …) are globals in a browser.
  for (const [name, value] of Object.entries(webgpu.globals)) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  }
  let adapter: GPUAdapter | null;
  try {
    instance ??= webgpu.create([]);
    adapter = await instance.requestAdapter();
  } catch (e) {
    throw new WebGpuUnavailableError(`WebGPU: requesting an adapter failed (${firstLine(e)}); ${driverHint(icd)}`);
  }
  if (!adapter) throw new WebGpuUnavailableError(noAdapterMessage(icd));

  let device: GPUDevice;
  try {
    const requiredFeatures: GPUFeatureName[] = options.timestampQuery && adapter.features.has('timestamp-query') ? ['timestamp-query'] : [];
    for (const f of TEXTURE_COMPRESSION_FEATURES) if (adapter.features.has(f)) requiredFeatures.push(f);
    if (adapter.features.has('indirect-first-instance')) requiredFeatures.push('indirect-first-instance');
    device = await adapter.requestDevice({ label, requiredFeatures, requiredLimits: optionalLimits(adapter) });
  } catch (e) {
    throw new WebGpuUnavailableError(`WebGPU: the adapter "${adapter.info.description || adapter.info.vendor}" refused a device: ${firstLine(e)}`);
  }
  const onUncapturedError = options.onUncapturedError
    ?? ((error: GPUError) => process.stderr.write(`WebGPU error on device "${label}": ${firstLine(error)}\n`));
  device.addEventListener('uncapturederror', (event) => onUncapturedError((event as GPUUncapturedErrorEvent).error));
  const onLost = options.onLost
    ?? ((info: GPUDeviceLostInfo) => process.stderr.write(`WebGPU device "${label}" lost (${info.reason}): ${firstLine(info.message)}\n`));
  void device.lost.then((info) => {
    if (info.reason !== 'destroyed') onLost(info);
  });
  return device;
}

/** Runs `fn` with a fresh device and destroys the device afterwards, also when `fn` throws. */
export async function withNodeDevice<T>(fn: (device: GPUDevice) => Promise<T>, options: NodeDeviceOptions = {}): Promise<T> {
  const device = await createNodeDevice(options);
  try {
    return await fn(device);
  } finally {
    device.destroy();
  }
}

type WebGpuModule = typeof import('webgpu');

/**
 * The process's one Dawn instance, like a page's one `navigator.gpu`. It must outlive
 * every device made from it: if it is garbage-collected while a device still has work
 * in flight, dawn.node's event polling dereferences the freed instance and the process
 * crashes (seen here as a SIGSEGV in InstanceBase::ProcessEvents during mapAsync).
 */
let instance: GPU | undefined;

async function importWebGpu(): Promise<WebGpuModule> {
  try {
    return (await import(/* @vite-ignore */ WEBGPU_PACKAGE)) as WebGpuModule;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new WebGpuUnavailableError('WebGPU: the "webgpu" npm package (Dawn for Node) is not installed; run `npm install --save-dev webgpu`');
    }
    throw new WebGpuUnavailableError(`WebGPU: the "webgpu" package failed to load its dawn.node for ${process.platform}-${process.arch}: ${firstLine(e)}`);
  }
}

/** Points the Vulkan loader at SwiftShader unless a driver was chosen; returns the ICD in effect (if any). */
function useSwiftShaderByDefault(): string | undefined {
  const chosen = process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES;
  if (chosen) return chosen;
  if (process.platform === 'linux' && existsSync(SWIFTSHADER_ICD)) {
    // The loader reads the variable when Dawn creates its Vulkan instance, which is later.
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    return SWIFTSHADER_ICD;
  }
  return undefined;
}

const VULKAN_LOADER = 'libvulkan.so.1';
const LIBRARY_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib64', '/lib', '/usr/local/lib'];

function hasVulkanLoader(): boolean {
  const dirs = [...(process.env.LD_LIBRARY_PATH ?? '').split(delimiter).filter(Boolean), ...LIBRARY_DIRS];
  return dirs.some((d) => existsSync(join(d, VULKAN_LOADER)));
}

function driverHint(icd: string | undefined): string {
  if (process.platform !== 'linux') return 'check that this machine has a WebGPU-capable GPU driver';
  if (!hasVulkanLoader()) return `the Vulkan loader ${VULKAN_LOADER} is missing: install it (Debian/Ubuntu: apt-get install libvulkan1)`;
  if (icd === undefined) {
    return `no Vulkan driver was chosen: install SwiftShader (Debian: apt-get install chromium, which ships ${SWIFTSHADER_ICD}) or set VK_ICD_FILENAMES to a driver's ICD JSON`;
  }
  const missing = icd.split(delimiter).filter((f) => f && !existsSync(f));
  if (missing.length > 0) return `VK_ICD_FILENAMES names ${missing.join(', ')}, which does not exist`;
  return `no usable adapter on the Vulkan driver ${icd}`;
}

function noAdapterMessage(icd: string | undefined): string {
  return `WebGPU unavailable: Dawn found no adapter; ${driverHint(icd)}`;
}

function firstLine(e: unknown): string {
  const text = typeof e === 'string' ? e : e instanceof Error || (e && typeof e === 'object' && 'message' in e) ? String((e as { message: unknown }).message) : String(e);
  return text.split('\n')[0];
}
