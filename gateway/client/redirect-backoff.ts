/** Redirects to one URL further apart than this start a new streak (the owner moved on, or lives again). */
export const redirectWindowMs = 3_000;
/** The wait before following the second redirect of a streak; each one after waits twice as long. */
export const firstRedirectWaitMs = 50;
/** The longest wait before following a redirect. */
export const maxRedirectWaitMs = 1_000;

/**
 * How long the SDK waits before following a `redirect`. The first to a URL is followed at once; once
 * the same URL comes back within `redirectWindowMs` — the node it names did not serve the call, as a
 * node killed a moment ago whose peers do not know it yet — each further one waits, from
 * `firstRedirectWaitMs` doubling to `maxRedirectWaitMs`, instead of bouncing between a survivor and
 * a dead address tens of times a second. A call served starts over.
 */
export class RedirectBackoff {
  private url: string | undefined;
  private count = 0;
  private lastAt = 0;

  /** The wait (ms) before following a redirect to `url` that came at `now` (ms). */
  next(url: string, now: number): number {
    if (url !== this.url || now - this.lastAt > redirectWindowMs) {
      this.url = url;
      this.count = 0;
    }
    this.count++;
    this.lastAt = now;
    if (this.count < 2) return 0;
    return Math.min(maxRedirectWaitMs, firstRedirectWaitMs * 2 ** Math.min(this.count - 2, 10));
  }

  /** A call was served: the next redirect is followed at once. */
  served(): void {
    this.url = undefined;
    this.count = 0;
  }
}
