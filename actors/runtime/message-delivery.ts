import { ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { ActorTable, Elsewhere, LoadFailure, Waiter } from "./actor-table.ts";
import type { Location, Router } from "./ports.ts";
import { retryLaterMs, unavailable } from "./request-results.ts";
import type { AskResult } from "./types.ts";

/** A request that finds its actor moving past the buffer's bound tries again after this long. */
const frozenRetryMs = 200;

const moved = (key: string): AskResult => ({
  ok: false,
  code: "MOVED",
  message: `${key} is not on this node`,
  retryAfterMs: retryLaterMs,
});

const failureAnswers: Record<Exclude<LoadFailure, Elsewhere>, (key: string) => AskResult> = {
  missing: (key) => ({ ok: false, code: "NOT_FOUND", message: `${key} does not exist` }),
  unavailable: () => unavailable("the store cannot be read now"),
  corrupt: (key) => ({ ok: false, code: "INTERNAL", message: `${key} cannot be restored` }),
};

/** What delivery needs from the system: starting a mailbox and bringing a key into memory. */
export interface DeliveryHost {
  kick(cell: ActorCell): void;
  /** Brings an actor into memory (see ActorLoader.load). Never rejects. */
  load(key: string): Promise<ActorCell | LoadFailure>;
}

/**
 * Routes each message to its key: an endpoint, the live cell's mailbox, the node that owns the key, or
 * a queue that waits (in arrival order) while the key is located or loaded.
 */
export class MessageDelivery {
  constructor(
    private readonly table: ActorTable,
    private readonly options: ActorSystemOptions,
    private readonly host: DeliveryHost,
  ) {}

  /** Delivers one message to `key`; `here`: it was forwarded by another node and never leaves this one. */
  deliver(key: string, envelope: Envelope, here = false): void {
    if (this.table.closed) {
      envelope.resolve?.(unavailable("the node is stopping"));
      return;
    }
    const endpoint = this.table.endpoints.get(key.slice(0, Math.max(0, key.indexOf("/"))));
    if (endpoint !== undefined) {
      if (envelope.resolve) envelope.resolve({ ok: false, code: "INVALID", message: `${key} takes no asks` });
      else endpoint.tell(key, envelope.message);
      return;
    }
    if (envelope.resolve === undefined && this.table.taps.get(key)?.(envelope.message) === true) return;
    const waiting = this.table.waiting.get(key);
    if (waiting) {
      waiting.push({ envelope, here });
      return;
    }
    const cell = this.table.cells.get(key);
    if (cell && !this.table.loading.has(key)) {
      if (cell.frozen && envelope.resolve && cell.mailbox.length >= cell.maxBuffered) {
        envelope.resolve(unavailable(`${key} is moving to another node`, frozenRetryMs));
        return;
      }
      cell.mailbox.push(envelope);
      this.host.kick(cell);
      return;
    }
    // The key is not in memory (or still being created): messages wait here, in arrival order, and move
    // to the mailbox together once it is loaded, so none can overtake another.
    const queue: Waiter[] = [{ envelope, here }];
    this.table.waiting.set(key, queue);
    const router = this.options.router;
    if (router === undefined || here) {
      void this.host.load(key).then((loaded) => {
        this.loaded(key, loaded);
      });
      return;
    }
    void this.locate(router, key).then((location) => {
      if (location.kind === "unavailable") {
        this.table.waiting.delete(key);
        for (const { envelope } of queue) {
          if (envelope.resolve)
            envelope.resolve(unavailable(`${key} awaits its owner`, location.retryAfterMs));
          else this.options.events?.deadLetter?.(key, envelope.message);
        }
        return;
      }
      if (location.kind !== "remote") {
        void this.host.load(key).then((loaded) => {
          this.loaded(key, loaded);
        });
        return;
      }
      this.table.waiting.delete(key);
      for (const waiter of queue) {
        if (waiter.here) this.deliver(key, waiter.envelope, true);
        else this.forward(router, location.node, key, waiter.envelope);
      }
    });
  }

  /** Hands the waiting messages of `key` to its loaded cell, or answers them with why it did not load. */
  private loaded(key: string, loaded: ActorCell | LoadFailure): void {
    const queue = this.table.waiting.get(key) ?? [];
    this.table.waiting.delete(key);
    if (loaded instanceof ActorCell) {
      loaded.mailbox.push(...queue.map((waiter) => waiter.envelope));
      this.host.kick(loaded);
      return;
    }
    const router = this.options.router;
    for (const { envelope, here } of queue) {
      if (typeof loaded !== "string") {
        // Claimed by another node: carry it there, unless it was carried here (no ping-pong) or the
        // claim names this node's older incarnation (a failover matter: retry later).
        if (!here && router !== undefined && loaded.elsewhere !== router.node) {
          this.forward(router, loaded.elsewhere, key, envelope);
        } else if (envelope.resolve) {
          envelope.resolve(
            here || router === undefined ? moved(key) : unavailable(`${key} awaits its owner`),
          );
        } else this.options.events?.deadLetter?.(key, envelope.message);
      } else if (envelope.resolve) envelope.resolve(failureAnswers[loaded](key));
      else this.options.events?.deadLetter?.(key, envelope.message);
    }
  }

  /** Asks the router where `key` lives; a router that fails is taken to mean "not known". */
  private async locate(router: Router, key: string): Promise<Location> {
    try {
      return await router.locate(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return { kind: "unknown" };
    }
  }

  /** Sends one message to the node that owns `key`; a `MOVED` answer makes it look once more. */
  private forward(router: Router, node: string, key: string, envelope: Envelope): void {
    const resolve = envelope.resolve;
    if (resolve === undefined) {
      router.forwardTell(node, key, envelope.message);
      return;
    }
    const forwarded = envelope.request
      ? { message: envelope.message, request: envelope.request }
      : { message: envelope.message };
    void router
      .forward(node, key, forwarded, { timeoutMs: this.options.askTimeoutMs ?? 5_000 })
      .then((result) => {
        if (!result.ok && result.code === "MOVED" && envelope.rerouted !== true) {
          router.invalidate(key);
          this.deliver(key, { ...envelope, rerouted: true });
          return;
        }
        resolve(result);
      });
  }
}
