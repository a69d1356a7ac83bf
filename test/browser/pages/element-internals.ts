/**
 * Module state of the library that the element tests read, taken from the modules the page's
 * element itself runs. A module imported by URL at run time (`import('/src/…')`) would be a
 * second instance in a built page (test/support/built-pages.ts), counting nothing.
 */
import { sharedDeviceListenerCount } from '../../../src/element/shared-device.ts';

export interface LibraryInternals {
  /** How many elements listen for the shared device's loss (src/element/shared-device.ts). */
  sharedDeviceListenerCount(): number;
}

declare global {
  interface Window {
    libraryInternals: LibraryInternals;
  }
}

window.libraryInternals = { sharedDeviceListenerCount };
