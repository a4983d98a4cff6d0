/** Round-trip measurements to the connected node, each waiting for the `pong` of the `t` it sent. */
export class RoundTrips {
  private readonly pings = new Map<number, ((now: number) => void)[]>();

  /** Sends a ping (`send(t)`) and resolves with the ms until its pong; rejects after `timeoutMs`. */
  measure(send: (t: number) => void, timeoutMs: number): Promise<number> {
    const t = Date.now();
    return new Promise<number>((resolve, reject) => {
      const done = (now: number): void => {
        clearTimeout(timer);
        resolve(now - t);
      };
      const timer = setTimeout(() => {
        const left = (this.pings.get(t) ?? []).filter((d) => d !== done);
        if (left.length === 0) this.pings.delete(t);
        else this.pings.set(t, left);
        reject(new Error("no pong in time"));
      }, timeoutMs);
      this.pings.set(t, [...(this.pings.get(t) ?? []), done]);
      send(t);
    });
  }

  /** The node's `pong` for `t`: every measurement waiting for it is done. */
  answered(t: number): void {
    const waiting = this.pings.get(t);
    this.pings.delete(t);
    for (const done of waiting ?? []) done(Date.now());
  }
}
