import { afterEach, describe, expect, it, vi } from 'vitest';

function shell(json: string | null) {
  document.body.innerHTML = json === null ? '' : `<script id="canvasweb-user" type="application/json">${json}</script>`;
}

describe('the current user on first load', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
    document.body.innerHTML = '';
  });

  it('reads the user the page shell was rendered for', async () => {
    const { embeddedUser } = await import('./auth');
    shell('{"id": 7, "username": "\\u674e\\u96f7"}');
    expect(embeddedUser()).toEqual({ id: 7, username: '李雷' });
    shell('null');
    expect(embeddedUser()).toBeNull();
    shell('{"id": "7"}');
    expect(embeddedUser()).toBeUndefined();
    shell('{not json');
    expect(embeddedUser()).toBeUndefined();
    shell(null);
    expect(embeddedUser()).toBeUndefined();
  });

  async function firstLoad(json: string | null) {
    vi.resetModules();
    shell(json);
    const { api } = await import('../api/client');
    const me = vi.spyOn(api, 'me').mockResolvedValue({ id: 3, username: 'bob' });
    const auth = await import('./auth');
    await auth.ensureCurrentUser();
    return me;
  }

  it('asks the API only when the shell says nothing, so a logged-out visit makes no failing request', async () => {
    expect(await firstLoad('null')).not.toHaveBeenCalled();
    expect(await firstLoad('{"id": 3, "username": "bob"}')).not.toHaveBeenCalled();
    expect(await firstLoad(null)).toHaveBeenCalledTimes(1);
  });
});
