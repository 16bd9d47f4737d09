/**
 * What jsdom lacks and Radix's primitives call, for the component tests that run in jsdom (each such
 * test file starts with `// @vitest-environment jsdom` and imports this first). Layout is not
 * simulated: positioning is checked in Chromium by the e2e suite.
 */
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';

class NoopResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver ??= NoopResizeObserver;
const proto = Element.prototype as Element & Partial<{ hasPointerCapture: unknown; releasePointerCapture: unknown; setPointerCapture: unknown; scrollIntoView: unknown }>;
proto.hasPointerCapture ??= () => false;
proto.setPointerCapture ??= () => undefined;
proto.releasePointerCapture ??= () => undefined;
proto.scrollIntoView ??= () => undefined;

// Vitest runs without globals here, so Testing Library cannot register its own cleanup.
afterEach(() => cleanup());
