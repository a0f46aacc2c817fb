// The long-press hook: fires once after the delay, and not after a move, a lift, a second finger or a
// press that starts where it is not accepted.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LONG_PRESS_DELAY, useLongPress, type LongPressHandlers, type LongPressOptions, type TouchLike } from './useLongPress';

let root: Root | null = null;
let host: HTMLDivElement | null = null;

beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await act(async () => root?.unmount());
  host?.remove();
  root = host = null;
  vi.useRealTimers();
});

/** Mounts a component using the hook; returns its handlers and the spy. */
async function mount(options?: LongPressOptions) {
  const spy = vi.fn();
  let handlers: LongPressHandlers | null = null;
  function Probe() {
    handlers = useLongPress(spy, options);
    return null;
  }
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () => root!.render(<Probe />));
  return { spy, h: () => handlers! };
}

const pane = document.createElement('div');
const touch = (...points: [number, number][]): TouchLike => ({
  touches: points.map(([clientX, clientY]) => ({ clientX, clientY })),
  target: pane,
});

describe('useLongPress', () => {
  it('fires once after the delay with the start point and target', async () => {
    const { spy, h } = await mount();
    h().onTouchStartCapture(touch([100, 200]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY - 1);
    expect(spy).not.toHaveBeenCalled();
    expect(h().fired()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy).toHaveBeenCalledWith({ clientX: 100, clientY: 200 }, pane);
    expect(h().fired()).toBe(true);
    const end = { ...touch(), cancelable: true, preventDefault: vi.fn() };
    h().onTouchEndCapture(end);
    // the lift after a press sends no compatibility mouse events
    expect(end.preventDefault).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(LONG_PRESS_DELAY * 2);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('tolerates a small wobble of the finger', async () => {
    const { spy, h } = await mount();
    h().onTouchStartCapture(touch([100, 200]));
    h().onTouchMoveCapture(touch([104, 204]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('is cancelled by a move beyond the tolerance (a pan)', async () => {
    const { spy, h } = await mount({ tolerance: 8 });
    h().onTouchStartCapture(touch([100, 200]));
    h().onTouchMoveCapture(touch([100, 209]));
    // coming back does not revive it
    h().onTouchMoveCapture(touch([100, 200]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY * 2);
    expect(spy).not.toHaveBeenCalled();
  });

  it('is cancelled by lifting the finger before the delay (a tap)', async () => {
    const { spy, h } = await mount();
    h().onTouchStartCapture(touch([100, 200]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY - 50);
    const end = { ...touch(), cancelable: true, preventDefault: vi.fn() };
    h().onTouchEndCapture(end);
    vi.advanceTimersByTime(LONG_PRESS_DELAY);
    expect(spy).not.toHaveBeenCalled();
    expect(h().fired()).toBe(false);
    // a tap stays a tap: its click is not cancelled
    expect(end.preventDefault).not.toHaveBeenCalled();
  });

  it('is cancelled by touchcancel', async () => {
    const { spy, h } = await mount();
    h().onTouchStartCapture(touch([100, 200]));
    h().onTouchCancelCapture(touch());
    vi.advanceTimersByTime(LONG_PRESS_DELAY);
    expect(spy).not.toHaveBeenCalled();
  });

  it('is cancelled by a second finger (a pinch), and never starts with two', async () => {
    const { spy, h } = await mount();
    h().onTouchStartCapture(touch([100, 200]));
    h().onTouchStartCapture(touch([100, 200], [180, 260]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY * 2);
    h().onTouchStartCapture(touch([100, 200]));
    h().onTouchMoveCapture(touch([100, 200], [180, 260]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY * 2);
    expect(spy).not.toHaveBeenCalled();
  });

  it('starts only where `accept` allows', async () => {
    const { spy, h } = await mount({ accept: (target) => target === pane });
    h().onTouchStartCapture({ ...touch([10, 10]), target: document.body });
    vi.advanceTimersByTime(LONG_PRESS_DELAY);
    expect(spy).not.toHaveBeenCalled();
    h().onTouchStartCapture(touch([10, 10]));
    vi.advanceTimersByTime(LONG_PRESS_DELAY);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('uses a custom delay and drops a pending press on unmount', async () => {
    const { spy, h } = await mount({ delay: 200 });
    h().onTouchStartCapture(touch([1, 1]));
    vi.advanceTimersByTime(200);
    expect(spy).toHaveBeenCalledTimes(1);
    h().onTouchStartCapture(touch([1, 1]));
    await act(async () => root!.unmount());
    root = null;
    vi.advanceTimersByTime(500);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
