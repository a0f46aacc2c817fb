// Tests run in English unless a test switches (the catalogues are bundled, init is synchronous).
import '../i18n';
// jsdom lacks a few browser APIs React Flow relies on. `g` is the global object seen as a plain record,
// so stubs can be installed where jsdom has nothing (or has a different type).
const g = globalThis as unknown as Record<string, unknown>;
g.IS_REACT_ACT_ENVIRONMENT = true;

class ResizeObserverStub {
  private cb: ResizeObserverCallback;
  constructor(cb: ResizeObserverCallback) {
    this.cb = cb;
  }
  observe(target: Element) {
    this.cb([{ target, contentRect: target.getBoundingClientRect() } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}
if (!g.ResizeObserver) g.ResizeObserver = ResizeObserverStub;

class DOMMatrixReadOnlyStub {
  m22: number;
  constructor(transform?: string) {
    const scale = transform?.match(/scale\(([1-9.])\)/)?.[1];
    this.m22 = scale !== undefined ? +scale : 1;
  }
}
if (!g.DOMMatrixReadOnly) g.DOMMatrixReadOnly = DOMMatrixReadOnlyStub;

// Give elements a size so React Flow treats nodes as measured.
Object.defineProperties(HTMLElement.prototype, {
  offsetHeight: { get() { return parseFloat(this.style?.height) || 80; }, configurable: true },
  offsetWidth: { get() { return parseFloat(this.style?.width) || 200; }, configurable: true },
});
(SVGElement.prototype as unknown as Record<string, unknown>).getBBox = () => ({ x: 0, y: 0, width: 0, height: 0 });

if (!globalThis.crypto?.randomUUID) {
  let n = 0;
  g.crypto = {
    ...(globalThis.crypto ?? {}),
    randomUUID: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  };
}
