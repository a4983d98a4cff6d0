import { pack } from "msgpackr";
import { z } from "zod";
import type { Outbox, StampedFrame } from "../../actors/runtime/index.ts";
import type { Bus, BusSubscription } from "../bus.ts";
import { decodeValue } from "./decode-value.ts";

/** The subject every node listens on for frames its own sockets should carry. */
export const pushRelaySubject = "foyer.push";

/**
 * Keys whose players may be connected to another node than the actor's: a queue and the matched lobbies it
 * spawns (FLEET-PROTOCOL, "Routing": asked over NATS, the player stays on its gateway), and rooms — a
 * lobby's members are sent to the lobby's node, and after a failover its room may be on another survivor.
 * Lobbies are not relayed: their members are redirected to the owner, so every member's socket is there
 * — except for a while after a lobby moved here (`relayAfterMove`): its members are still connected to
 * the node it came from until their SDK has moved over (make before break), and hear it through that node.
 * A frame is relayed only for players with no socket on the actor's node, so a room whose players sit on
 * its node (the usual case) publishes nothing.
 */
export const relayedKeyPrefixes: readonly string[] = ["queue/", "mmlobby/", "room/"];

const relayedSchema = z.object({
  from: z.string(),
  players: z.array(z.string()).min(1),
  frame: z.looseObject({ type: z.string(), key: z.string(), epoch: z.number(), seq: z.number() }),
});

/** What a PushRelay is made of. */
export interface PushRelayOptions {
  readonly bus: Bus;
  /** This node's id: its own relayed frames are not delivered twice. */
  readonly node: string;
  /** The node's sessions: frames for players connected here. */
  readonly local: Outbox;
  /** True when `player` has a live socket on this node. */
  readonly here: (player: string) => boolean;
  /** Monotonic ms, for how long a moved key stays relayed (default `performance.now`). */
  readonly now?: () => number;
  /** How long a key that moved here is relayed (default `relayAfterMoveMs`). */
  readonly relayAfterMoveMs?: number;
}

/** How long a key that moved here is relayed by default: its members' SDKs move over well within it. */
export const relayAfterMoveMs = 30_000;

/**
 * The fleet's Outbox: a frame goes to the players connected here, and — for a relayed key — the players
 * who are not are sent on to every node (`foyer.push`), each of which hands it to its own sockets. So a
 * queue's `matchFound` reaches a player on another gateway, and still does after the queue moved (drain,
 * failover). A broadcast, not a lookup of each player's gateway: one publish per push, read by every
 * node (docs/matchmaking.md, "In a fleet"). Best effort, as every push is: a player who missed one
 * asks again (`runningMatch`, a reconnect).
 */
export class PushRelay implements Outbox {
  private subscription: BusSubscription | undefined;
  /** Keys moved here lately, relayed until the time each maps to. */
  private readonly movedHere = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: PushRelayOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** `key` moved here: its frames reach members still connected to the node it left, for a while. */
  relayAfterMove(key: string): void {
    // Re-inserted, so the map stays in expiry order and `push` trims it from the front.
    this.movedHere.delete(key);
    this.movedHere.set(key, this.now() + (this.options.relayAfterMoveMs ?? relayAfterMoveMs));
  }

  /** Starts handing other nodes' relayed frames to this node's sockets. Idempotent. */
  async start(): Promise<void> {
    this.subscription ??= this.options.bus.subscribe(pushRelaySubject, (msg) => {
      let relayed;
      try {
        relayed = decodeValue("relayed push", relayedSchema, msg.data);
      } catch {
        return; // not ours to read: dropped, as a push to nobody is
      }
      if (relayed.from === this.options.node) return;
      const players = relayed.players.filter((p) => this.options.here(p));
      if (players.length > 0) this.options.local.push(players, relayed.frame);
    });
    await this.options.bus.flush();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private movedLately(key: string): boolean {
    if (this.movedHere.size === 0) return false;
    const now = this.now();
    for (const [moved, until] of this.movedHere) {
      if (until > now) break;
      this.movedHere.delete(moved);
    }
    return this.movedHere.has(key);
  }

  push(players: readonly string[], frame: StampedFrame): void {
    this.options.local.push(players, frame);
    if (!relayedKeyPrefixes.some((prefix) => frame.key.startsWith(prefix)) && !this.movedLately(frame.key))
      return;
    const away = players.filter((p) => !this.options.here(p));
    if (away.length === 0) return;
    try {
      this.options.bus.publish(pushRelaySubject, pack({ from: this.options.node, players: away, frame }));
    } catch {
      // A closed bus: the node is stopping; the push is lost as it would be to a closed socket.
    }
  }
}
