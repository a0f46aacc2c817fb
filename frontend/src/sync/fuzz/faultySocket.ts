// A real WebSocket (the `ws` package) behind the engine's SocketLike, with the
// faults a client really sees: change frames delayed behind the next frame
// (two server processes publish independently) or delivered twice (a
// broadcast and a catch-up overlap), and connections that die without a close
// frame, losing what was in flight. (Drops on the channel layer itself are the
// server's to heal, by its sync check; the Python fuzz covers those.)
import WebSocket from 'ws';
import type { SocketLike } from '../engine';
import type { Rng } from './rng';

export interface Faults {
  dropChange: number;
  reorder: number;
  duplicate: number;
}

export interface FaultStats {
  dropped: number;
  reordered: number;
  duplicated: number;
  kills: number;
}

export class FaultySocket implements SocketLike {
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  private readonly ws: WebSocket;
  private held: string | null = null;

  constructor(url: string, headers: Record<string, string>, private readonly rng: Rng,
              private readonly faults: Faults, private readonly stats: FaultStats,
              /** sees every frame as it arrives, before any fault (the harness counts acks and rejects) */
              private readonly observe: (text: string) => void = () => undefined) {
    this.ws = new WebSocket(url, { headers });
    this.ws.on('open', () => this.onopen?.({}));
    this.ws.on('message', (data) => {
      const text = String(data);
      this.observe(text);
      this.incoming(text);
    });
    this.ws.on('close', (code) => this.onclose?.({ code }));
    this.ws.on('error', () => undefined);
  }

  get readyState(): number {
    return this.ws.readyState;
  }

  send(data: string): void {
    this.ws.send(data);
  }

  close(code?: number, reason?: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  /** The connection dies: no close frame, in-flight frames lost. */
  kill(): void {
    this.stats.kills++;
    this.held = null;
    this.ws.terminate();
  }

  private deliver(text: string) {
    this.onmessage?.({ data: text });
  }

  private incoming(text: string) {
    const isChange = text.startsWith('{"type": "change"') || text.startsWith('{"type":"change"');
    if (isChange && this.rng() < this.faults.dropChange) {
      // The connection dies with this frame in flight.
      this.stats.dropped++;
      this.kill();
      return;
    }
    if (isChange && this.held === null && this.rng() < this.faults.reorder) {
      this.stats.reordered++;
      this.held = text;
      // Delivered after the next frame, or on its own a moment later in a quiet spell.
      setTimeout(() => {
        if (this.held === text) {
          this.held = null;
          this.deliver(text);
        }
      }, 30);
      return;
    }
    this.deliver(text);
    if (isChange && this.rng() < this.faults.duplicate) {
      this.stats.duplicated++;
      this.deliver(text);
    }
    if (this.held !== null) {
      const late = this.held;
      this.held = null;
      this.deliver(late);
    }
  }
}
