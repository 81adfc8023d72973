/**
 * A browser with cookies, for sign-in flows: follows redirects between the origins it is told are
 * part of the flow (the service, its identity provider) and stops at the first answer that is not a
 * redirect, or at a redirect that leaves them (back to the MCP client's redirect URI).
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  /**
   * `stopsBefore`: redirects to these URLs are answered as they are rather than followed (an app's
   * own callback on the service's origin, such as the web app's `/app/callback`).
   */
  constructor(
    private readonly origins: () => readonly string[],
    private readonly stopsBefore: (url: URL) => boolean = () => false,
  ) {}

  async open(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      const target = new URL(current);
      const response = await fetch(target, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: this.cookieHeader(target) },
      });
      this.keep(target, response);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: current };
      const next = new URL(location, target);
      if (!this.origins().includes(next.origin) || this.stopsBefore(next)) return { response, url: current };
      current = next.href;
      request = {};
    }
    throw new Error('Too many redirects');
  }

  private cookieHeader(url: URL): string {
    return [...(this.jar.get(url.host)?.entries() ?? [])]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  private keep(url: URL, response: Response): void {
    const cookies = this.jar.get(url.host) ?? new Map<string, string>();
    this.jar.set(url.host, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.trim().split('=');
        if (/^max-age$/i.test(key)) return Number(val) <= 0;
        if (/^expires$/i.test(key)) return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }
}
