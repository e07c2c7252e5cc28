// The token lives in this tab's sessionStorage only: gone when the tab closes, never in a URL or a cookie.
const KEY = "acp-session-host.token";

export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (token: string): void => sessionStorage.setItem(KEY, token),
  clear: (): void => sessionStorage.removeItem(KEY),
};
