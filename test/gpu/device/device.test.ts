import { describe, expect, it } from 'vitest';
import { canvasPixelSize, requestWebGpuDevice, srgbViewFormat, WebGpuUnsupportedError } from '../../../src/gpu/device/device.ts';

/** Just enough of GPU for requestWebGpuDevice. */
function fakeGpu(adapter: unknown): GPU {
  return { requestAdapter: async () => adapter, getPreferredCanvasFormat: () => 'bgra8unorm' } as unknown as GPU;
}

describe('requestWebGpuDevice', () => {
  it('says so when navigator.gpu is missing', async () => {
    // Node has no navigator.gpu: the browser-less case.
    await expect(requestWebGpuDevice()).rejects.toThrow(WebGpuUnsupportedError);
    await expect(requestWebGpuDevice()).rejects.toThrow(/navigator\.gpu is undefined/);
  });

  it('names the insecure context when that is the reason', async () => {
    const g = globalThis as { isSecureContext?: boolean };
    const before = g.isSecureContext;
    g.isSecureContext = false;
    try {
      await expect(requestWebGpuDevice()).rejects.toThrow(/secure pages.*https/);
    } finally {
      if (before === undefined) delete g.isSecureContext;
      else g.isSecureContext = before;
    }
  });

  it('says so when no adapter is returned', async () => {
    await expect(requestWebGpuDevice({ gpu: fakeGpu(null) })).rejects.toThrow(/no GPU adapter is available/);
  });

  it('reports a device the adapter refused', async () => {
    const adapter = { requestDevice: async () => { throw new Error('limits exceeded'); } };
    await expect(requestWebGpuDevice({ gpu: fakeGpu(adapter) })).rejects.toThrow(/refused to create a device: limits exceeded/);
  });

  it('returns the device', async () => {
    const device = { label: 'fake' };
    const adapter = { requestDevice: async (d: GPUDeviceDescriptor) => ({ ...device, label: d.label }) };
    expect(await requestWebGpuDevice({ gpu: fakeGpu(adapter), label: 'mine' })).toEqual({ label: 'mine' });
  });

  it('asks for the texture compression features the adapter has (KTX2 transcodes to them), and only those', async () => {
    const seen: GPUDeviceDescriptor[] = [];
    const adapter = (features: string[]) => ({ features: new Set(features), requestDevice: async (d: GPUDeviceDescriptor) => { seen.push(d); return { label: d.label }; } });
    await requestWebGpuDevice({ gpu: fakeGpu(adapter(['texture-compression-astc', 'texture-compression-bc', 'shader-f16'])) });
    await requestWebGpuDevice({ gpu: fakeGpu(adapter(['texture-compression-etc2'])), timestampQuery: false });
    await requestWebGpuDevice({ gpu: fakeGpu(adapter([])) });
    expect(seen.map((d) => [...(d.requiredFeatures ?? [])])).toEqual([
      ['texture-compression-bc', 'texture-compression-astc'], ['texture-compression-etc2'], [],
    ]);
  });
});

describe('canvasPixelSize', () => {
  const box = (inlineSize: number, blockSize: number) => [{ inlineSize, blockSize }] as unknown as ResizeObserverSize[];
  const rect = { width: 0, height: 0 } as DOMRectReadOnly;

  it('prefers devicePixelContentBoxSize (exact device pixels)', () => {
    const entry = { devicePixelContentBoxSize: box(301, 149), contentBoxSize: box(150.5, 74.5), contentRect: rect };
    expect(canvasPixelSize(entry, 2, 8192)).toEqual({ width: 301, height: 149 });
  });

  it('falls back to the CSS content box × devicePixelRatio', () => {
    const entry = { contentBoxSize: box(150.4, 74.6), contentRect: rect } as unknown as ResizeObserverEntry;
    expect(canvasPixelSize(entry, 2, 8192)).toEqual({ width: 301, height: 149 });
    const old = { contentRect: { width: 100, height: 50 } } as unknown as ResizeObserverEntry;
    expect(canvasPixelSize(old, 1.5, 8192)).toEqual({ width: 150, height: 75 });
  });

  it('clamps to 1…maxDimension and writes into `out`', () => {
    const out = { width: 0, height: 0 };
    const entry = { devicePixelContentBoxSize: box(10000, 0), contentBoxSize: box(1, 1), contentRect: rect };
    expect(canvasPixelSize(entry, 1, 4096, out)).toBe(out);
    expect(out).toEqual({ width: 4096, height: 1 });
  });
});

describe('srgbViewFormat', () => {
  it('gives the -srgb sibling of 8-bit formats', () => {
    expect(srgbViewFormat('bgra8unorm')).toBe('bgra8unorm-srgb');
    expect(srgbViewFormat('rgba8unorm')).toBe('rgba8unorm-srgb');
    expect(srgbViewFormat('rgba16float')).toBe('rgba16float');
  });
});
