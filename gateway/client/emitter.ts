/** A small typed event emitter that runs in browsers and Node alike (no node:events). */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Resolves with the next payload of `event` that passes `until` (default: any). */
  next<K extends keyof Events>(
    event: K,
    until: (payload: Events[K]) => boolean = () => true,
  ): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(event, (payload) => {
        if (!until(payload)) return;
        off();
        resolve(payload);
      });
    });
  }

  protected emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (p: Events[K]) => void)(payload);
  }
}
