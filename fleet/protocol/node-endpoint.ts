import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import { decodeDelivery, encodeAskResult, nodeActorSubject } from "./actor-wire.ts";
import type { Bus, BusMessage, BusSubscription } from "../bus.ts";

/** What a NodeEndpoint is made of. */
export interface NodeEndpointOptions {
  readonly bus: Bus;
  /** This node's id: the endpoint serves `foyer.node.<node>.actor`. */
  readonly node: string;
  readonly system: Pick<ActorSystem, "ask" | "tell" | "spawn">;
  /**
   * Whether this node takes a spawn another node placed here (a room: only while it can open one).
   * Without it every placed spawn is taken.
   */
  readonly maySpawn?: (key: string) => boolean;
  /**
   * Whether `player` has a live socket on this node whose session is in `key` (or entering it). A
   * disconnect another node tells about such a player (`connection { connected: false }`) is dropped:
   * see `staleDisconnect`. Without it none is dropped.
   */
  readonly inKeyHere?: (player: string, key: string) => boolean;
}

/**
 * A disconnect told by another node about `key`, for a player whose live session on this node is in
 * `key` (or joining it), is stale: the player's socket there closed after the player had come here (a
 * redirect to the room's node, a reconnect after a failover), and the tell arrived after the join here.
 * Delivered, it would mark a connected player away, and a room would wait for the player until it
 * reconnected (docs/rooms.md, the failover flake). Dropping it loses nothing: this node's own session
 * reports the player gone from `key` when its socket closes.
 */
export function staleDisconnect(
  key: string,
  message: unknown,
  inKeyHere: (player: string, key: string) => boolean,
): boolean {
  if (typeof message !== "object" || message === null) return false;
  const { type, connected, player } = message as { type?: unknown; connected?: unknown; player?: unknown };
  return type === "connection" && connected === false && typeof player === "string" && inKeyHere(player, key);
}

/**
 * Serves other nodes' messages for this node's actors: each msgpack `{ key, message, request? }` is
 * asked of the local runtime with `here` set — it is never sent on to a third node — and answered with
 * the AskResult. A key this node does not own is answered `MOVED` (with retryAfterMs) by the runtime,
 * so the sender looks the key up again. Tells (`tell: true`) are delivered and not answered.
 */
export class NodeEndpoint {
  private subscription: BusSubscription | undefined;

  constructor(private readonly options: NodeEndpointOptions) {}

  /** Subscribes and flushes. On a cluster other servers learn of it a moment later (senders retry). */
  async start(): Promise<void> {
    this.subscription ??= this.options.bus.subscribe(nodeActorSubject(this.options.node), (msg) => {
      this.serve(msg);
    });
    await this.options.bus.flush();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private serve(msg: BusMessage): void {
    let delivery;
    try {
      delivery = decodeDelivery(msg.data);
    } catch {
      answer(msg, { ok: false, code: "INVALID", message: "not an actor delivery" });
      return;
    }
    const { system } = this.options;
    if (delivery.spawn === true) {
      void this.spawn(delivery.key, delivery.message).then((result) => {
        answer(msg, result);
      });
      return;
    }
    if (delivery.tell === true) {
      const { inKeyHere } = this.options;
      if (inKeyHere !== undefined && staleDisconnect(delivery.key, delivery.message, inKeyHere)) return;
      system.tell(delivery.key, delivery.message, { here: true });
      return;
    }
    const opts = delivery.request === undefined ? { here: true } : { here: true, request: delivery.request };
    void system.ask(delivery.key, delivery.message, opts).then((result) => {
      answer(msg, result);
    });
  }

  /**
   * A spawn another node placed here (a queue's room on the least-loaded node): created and claimed by
   * this node, or refused — UNAVAILABLE when it cannot take it now, INVALID when the key is taken — so the
   * placing actor hears `spawnFailed` and chooses again.
   */
  private async spawn(key: string, init: unknown): Promise<AskResult> {
    if (this.options.maySpawn?.(key) === false)
      return { ok: false, code: "UNAVAILABLE", message: `${this.options.node} cannot take ${key} now` };
    const spawned = await this.options.system.spawn(key, init);
    if (!spawned.created) return { ok: false, code: "INVALID", message: `${key} is taken` };
    return spawned.result;
  }
}

function answer(msg: BusMessage, result: AskResult): void {
  if (msg.reply !== undefined) msg.respond(encodeAskResult(result));
}
