import { describe, expect, it } from 'vitest';
import { parseRoute } from './router';

describe('parseRoute', () => {
  it('maps the three SPA paths', () => {
    expect(parseRoute('/')).toEqual({ name: 'list' });
    expect(parseRoute('/login/')).toEqual({ name: 'login', next: null });
    expect(parseRoute('/login/', '?next=%2Fcanvases%2F3%2F')).toEqual({ name: 'login', next: '/canvases/3/' });
    expect(parseRoute('/canvases/12/')).toEqual({ name: 'canvas', id: '12' });
    expect(parseRoute('/canvases/12')).toEqual({ name: 'canvas', id: '12' });
    expect(parseRoute('/nope/')).toEqual({ name: 'notFound' });
  });
  it('refuses open redirects in ?next', () => {
    expect(parseRoute('/login/', '?next=https://evil.example/')).toEqual({ name: 'login', next: null });
    expect(parseRoute('/login/', '?next=//evil.example/')).toEqual({ name: 'login', next: null });
  });
});
