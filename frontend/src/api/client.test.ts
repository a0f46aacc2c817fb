import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request } from './client';

afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('request', () => {
  it('sends JSON with the CSRF cookie on unsafe methods', async () => {
    document.cookie = 'csrftoken=tok123';
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ id: 1 }), { status: 201 }));
    vi.stubGlobal('fetch', fetchMock);
    const res = await request<{ id: number }>('POST', '/api/canvases/', { name: '计划' });
    expect(res.id).toBe(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/canvases/');
    expect((init.headers as Record<string, string>)['X-CSRFToken']).toBe('tok123');
    expect(init.body).toBe(JSON.stringify({ name: '计划' }));
    expect(init.credentials).toBe('same-origin');
  });

  it('turns the error envelope into an ApiError', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ error: { code: 'CONFLICT', message: 'taken', field: 'name' } }), { status: 409 })));
    const err = await request('GET', '/api/x/').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'taken', field: 'name' });
  });

  it('reports network failures without throwing a TypeError', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }));
    const err = await request('GET', '/api/x/').catch((e) => e);
    expect(err).toMatchObject({ code: 'NETWORK' });
  });
});
