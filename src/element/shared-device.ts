import { requestWebGpuDevice } from '../gpu/device/device.ts';

/**
 * The one GPUDevice every <skinned-mesh-viewer> on the page shares, requested lazily by
 * the first element that needs it. A page with twenty viewers then pays for one adapter
 * and one device, and every canvas is configured against it.
 *
 * When the device is lost (driver reset, tab backgrounded on some mobile GPUs, or
 * `destroy()`), the next `acquireSharedDevice()` requests a new one, and every
 * subscriber is told so it can drop its GPU objects and re-upload. Subscribers live in a
 * module-level set rather than as `device.lost.then(...)` reactions because a reaction
 * cannot be removed: it would keep every element ever attached alive until the device
 * dies.
 */

export type DeviceLostListener = (device: GPUDevice, info: GPUDeviceLostInfo) => void;

let current: Promise<GPUDevice> | undefined;
const lostListeners = new Set<DeviceLostListener>();

export function acquireSharedDevice(): Promise<GPUDevice> {
  if (current) return current;
  // At once, from the first element's connection (for a parsed page: while the module defines the
  // tag), as model-viewer makes its context when its module runs: the GPU process starts (0.1–0.3 s
  // on SwiftShader) while the page lays out and fetches the model, not after its fetch is out.
  const request = requestWebGpuDevice({ label: 'skinned-mesh-viewer shared device' });
  current = request;
  request.then(
    (device) => {
      // Validation errors would otherwise only reach the console as a generic warning;
      // naming the labelled object is what makes them fixable.
      device.addEventListener('uncapturederror', (event) => {
        console.error(`<skinned-mesh-viewer> WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
      });
      void device.lost.then((info) => {
        if (current === request) current = undefined;
        for (const listener of [...lostListeners]) listener(device, info);
      });
    },
    // A failed request is not cached: WebGPU may become available (a flag flipped, a
    // driver recovered), and the error is cheap to reproduce.
    () => { if (current === request) current = undefined; },
  );
  return request;
}

export function onSharedDeviceLost(listener: DeviceLostListener): () => void {
  lostListeners.add(listener);
  return () => { lostListeners.delete(listener); };
}

/** How many elements listen for device loss (tests check that detached elements unsubscribe). */
export function sharedDeviceListenerCount(): number {
  return lostListeners.size;
}
