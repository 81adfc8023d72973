import type { Page, Request, Route } from 'playwright-core';

type UrlMatcher = string | RegExp | ((url: URL) => boolean);

export interface Interception {
  /**
   * Waits until every handler call has passed its request on, then removes the route. Removing it
   * while a handler still held a request raced Playwright's own fallback ("Route is already
   * handled", an unhandled rejection that fails the whole run).
   */
  end(): Promise<void>;
}

export interface HeldRequests extends Interception {
  /** Lets the held requests (and later ones) through. */
  release(): void;
}

/** Runs `before` ahead of each of the page's requests to `url`, which then goes on unchanged. */
export async function delayRequests(
  page: Page,
  url: UrlMatcher,
  before: (request: Request) => Promise<void> | void,
): Promise<Interception> {
  const running = new Set<Promise<void>>();
  const handler = (route: Route) => {
    const handled = (async () => {
      await before(route.request());
      await route.fallback();
    })();
    running.add(handled);
    return handled.finally(() => running.delete(handled));
  };
  await page.route(url, handler);
  return {
    async end() {
      // A request may reach the handler while earlier ones finish: wait until none is left.
      while (running.size > 0) await Promise.allSettled([...running]);
      await page.unroute(url, handler);
    },
  };
}

/**
 * Holds the page's requests to `url` (those `hold` picks; all by default) until released, so that
 * what the web app shows meanwhile can be checked; the rest pass straight on.
 */
export async function holdRequests(
  page: Page,
  url: UrlMatcher,
  hold: (request: Request) => boolean = () => true,
): Promise<HeldRequests> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const interception = await delayRequests(page, url, (request) => (hold(request) ? released : undefined));
  return {
    release,
    async end() {
      release();
      await interception.end();
    },
  };
}
