/**
 * A token bucket per connection. Within the rate a frame is admitted; past it the frame is refused
 * (`RATE_LIMITED`, retryable); a client that keeps sending while refused — a flood — is closed.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Admits one frame, refuses it, or says the connection is flooding. */
  take(): "ok" | "refuse" | "close" {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return "ok";
    return this.tokens <= -this.burst ? "close" : "refuse";
  }

  /** How long until one frame would be admitted again. */
  retryAfterMs(): number {
    return Math.max(1, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000));
  }
}
