// The connection indicator and the engine's offline handling: no network → "offline", no Retry, no
// attempts; the window's `online` event reconnects at once; lost but online → Retry (connection-retry).
import { act, useSyncExternalStore } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import i18n from 'i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncEngine } from '../sync/engine';
import { FakeSocket, fakeSocketFactory } from '../test/fakeSocket';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { ALICE } from '../test/engineHarness';
import { ConnectionIndicator } from './ConnectionIndicator';
import { useCanvasEngine } from './useCanvasEngine';

fakeTimersPerTest();

let networkUp = true;
let root: Root | null = null;
let host: HTMLDivElement | null = null;

beforeEach(() => {
  networkUp = true;
  Object.defineProperty(window.navigator, 'onLine', { configurable: true, get: () => networkUp });
});

afterEach(async () => {
  await act(async () => root?.unmount());
  host?.remove();
  root = host = null;
  delete (window.navigator as unknown as Record<string, unknown>).onLine;
  vi.unstubAllGlobals();
  await i18n.changeLanguage('en');
});

const welcome = { type: 'welcome', canvas: { id: 1, name: 'Plan', revision: 1 }, user: ALICE, role: 'owner', connection_id: 'c1' };

function Indicator({ engine }: { engine: SyncEngine }) {
  const state = useSyncExternalStore(engine.subscribe, engine.getSnapshot);
  return <ConnectionIndicator state={state} engine={engine} />;
}

async function mount(node: React.ReactNode) {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () => root!.render(node));
}

const q = (id: string) => host!.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;

function onlineEngine() {
  const f = fakeSocketFactory();
  const engine = new SyncEngine({ url: 'ws://x/', socketFactory: f.factory, sessionId: 's1', random: () => 0, isOnline: () => networkUp });
  engine.start();
  f.last().open();
  f.last().receive(welcome);
  return { engine, f };
}

describe('ConnectionIndicator', () => {
  it('lost but online: reconnecting with a Retry button that connects at once', async () => {
    const { engine, f } = onlineEngine();
    await mount(<Indicator engine={engine} />);
    act(() => f.last().serverClose(1006));
    expect(q('connection-status')!.textContent).toBe('reconnecting');
    const before = f.sockets.length;
    act(() => q('connection-retry')!.click());
    expect(f.sockets.length).toBe(before + 1);
  });

  it('no network: offline, no Retry, no reconnect attempts; the network back reconnects at once', async () => {
    const { engine, f } = onlineEngine();
    await mount(<Indicator engine={engine} />);
    networkUp = false;
    act(() => engine.connectionLost());
    expect(f.last().closed).toBe(true);
    expect(q('connection-status')!.textContent).toBe('offline');
    expect(q('connection-retry')).toBeNull();
    const before = f.sockets.length;
    act(() => vi.advanceTimersByTime(60_000));
    expect(f.sockets.length).toBe(before);
    networkUp = true;
    act(() => engine.reconnectNow());
    expect(f.sockets.length).toBe(before + 1);
    act(() => {
      f.last().open();
      f.last().receive(welcome);
    });
    expect(q('connection-status')!.textContent).toBe('online');
  });

  it('a socket that closes while there is no network waits too, and says 离线 in Chinese', async () => {
    await i18n.changeLanguage('zh-Hans');
    const { engine, f } = onlineEngine();
    await mount(<Indicator engine={engine} />);
    networkUp = false;
    act(() => f.last().serverClose(1006));
    expect(q('connection-status')!.textContent).toBe('离线');
    expect(q('connection-retry')).toBeNull();
    act(() => vi.advanceTimersByTime(60_000));
    expect(f.sockets.length).toBe(1);
  });
});

describe('useCanvasEngine and the browser network events', () => {
  function Page() {
    const engine = useCanvasEngine('1');
    return engine ? <Indicator engine={engine} /> : null;
  }

  it('offline event: no attempts while navigator.onLine is false; online event: reconnects at once', async () => {
    const sockets: FakeSocket[] = [];
    vi.stubGlobal(
      'WebSocket',
      class extends FakeSocket {
        constructor(url: string) {
          super(url);
          sockets.push(this);
        }
      },
    );
    await mount(<Page />);
    act(() => {
      sockets[0].open();
      sockets[0].receive(welcome);
    });
    await act(async () => vi.advanceTimersByTime(400));
    expect(q('connection-status')!.textContent).toBe('online');

    networkUp = false;
    act(() => window.dispatchEvent(new Event('offline')));
    expect(q('connection-status')!.textContent).toBe('offline');
    expect(q('connection-retry')).toBeNull();
    act(() => vi.advanceTimersByTime(30_000));
    expect(sockets.length).toBe(1);

    networkUp = true;
    act(() => window.dispatchEvent(new Event('online')));
    expect(sockets.length).toBe(2);
  });
});
