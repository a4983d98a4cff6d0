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

  /**
   * Takes `tokens` more for a request that cost more than a frame: a wrong lobby password takes a
   * quarter of the burst, so a guesser gets a few tries a second and is then refused like a flood. Never
   * below a full bucket's debt, so a penalty alone does not close the connection.
   */
  penalize(tokens: number): void {
    this.tokens = Math.max(-this.burst + 1, this.tokens - tokens);
  }

  /** How long until one frame would be admitted again. */
  retryAfterMs(): number {
    return Math.max(1, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000));
  }
}
