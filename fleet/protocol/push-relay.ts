import { pack } from "msgpackr";
import { z } from "zod";
import type { Outbox, StampedFrame } from "../../actors/runtime/index.ts";
import type { Bus, BusSubscription } from "../bus.ts";
import { decodeValue } from "./decode-value.ts";
import { PushRoutes, nodeHeardSubject, nodePushSubject } from "./push-routes.ts";
import { RelayedFrames } from "./relayed-frames.ts";

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

/** A gateway's answer to a frame sent to it alone: the players it no longer holds. */
const missedSchema = z.object({ missed: z.array(z.string()) });

/** A gateway's word to a broadcast frame's sender: it holds these players (PushRoutes). */
const heardSchema = z.object({ node: z.string(), players: z.array(z.string()).min(1) });

/** How long a frame sent to one gateway waits for its answer before it is broadcast instead. */
export const directPushTimeoutMs = 1_000;

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
 * who are not are sent on to the gateways that hold them. A player whose gateway this node does not know
 * yet is broadcast to (`foyer.push`, read by every node), and each gateway that delivered it says so
 * (`foyer.node.<sender>.heard`); from then on its frames go to that gateway alone
 * (`foyer.node.<gateway>.push`, a request answered with the players it no longer holds, who are
 * forgotten and broadcast to again, as are all of a gateway's that did not answer). So a queue's
 * `matchFound` reaches a player on another gateway, still does after the queue moved (drain, failover: the
 * new owner starts knowing nobody), and a push costs one message per gateway it is for, not one per node
 * (docs/matchmaking.md, "In a fleet"). Best effort, as every push is: a player who missed one asks again
 * (`runningMatch`, a reconnect).
 */
export class PushRelay implements Outbox {
  private subscriptions: BusSubscription[] = [];
  /** Keys moved here lately, relayed until the time each maps to. */
  private readonly movedHere = new Map<string, number>();
  private readonly now: () => number;
  private readonly routes = new PushRoutes();
  /** What was handed to this node's players, so a frame sent twice (direct and broadcast) is handed once. */
  private readonly handed = new RelayedFrames();

  constructor(private readonly options: PushRelayOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** `key` moved here: its frames reach members still connected to the node it left, for a while. */
  relayAfterMove(key: string): void {
    // Re-inserted, so the map stays in expiry order and `push` trims it from the front.
    this.movedHere.delete(key);
    this.movedHere.set(key, this.now() + (this.options.relayAfterMoveMs ?? relayAfterMoveMs));
  }

  /** Starts handing other nodes' relayed frames to this node's sockets, and learning gateways. Idempotent. */
  async start(): Promise<void> {
    if (this.subscriptions.length > 0) return;
    const { bus, node } = this.options;
    this.subscriptions = [
      bus.subscribe(pushRelaySubject, (msg) => {
        const relayed = this.decode(msg.data);
        if (relayed === undefined || relayed.from === node) return;
        const players = this.deliver(relayed);
        if (players.length > 0) this.publish(nodeHeardSubject(relayed.from), pack({ node, players }));
      }),
      bus.subscribe(nodePushSubject(node), (msg) => {
        const relayed = this.decode(msg.data);
        if (relayed === undefined) return;
        const delivered = new Set(this.deliver(relayed));
        msg.respond(pack({ missed: relayed.players.filter((p) => !delivered.has(p)) }));
      }),
      bus.subscribe(nodeHeardSubject(node), (msg) => {
        try {
          const heard = decodeValue("heard players", heardSchema, msg.data);
          this.routes.learn(heard.node, heard.players);
        } catch {
          // not ours to read: nothing learned
        }
      }),
    ];
    await bus.flush();
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  /** How many players this node knows the gateway of (for a test, and a gauge one day). */
  get knownGateways(): number {
    return this.routes.size;
  }

  private decode(data: Uint8Array): Relayed | undefined {
    try {
      return decodeValue("relayed push", relayedSchema, data);
    } catch {
      return undefined; // not ours to read: dropped, as a push to nobody is
    }
  }

  /**
   * Hands a relayed frame to its players connected here, but to none twice; returns every player held
   * here, a repeat's too (the sender must not take them for gone and broadcast to them again).
   */
  private deliver(relayed: Relayed): string[] {
    const players = relayed.players.filter((p) => this.options.here(p));
    const news = players.filter((p) => this.handed.admit(p, relayed.frame));
    if (news.length > 0) this.options.local.push(news, relayed.frame);
    return players;
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
    const { byNode, unknown } = this.routes.split(away);
    for (const [gateway, held] of byNode) this.sendTo(gateway, held, frame);
    this.broadcast(unknown, frame);
  }

  /** Sends `frame` to `gateway` for `players`; those it does not hold (or all, unanswered) are broadcast to. */
  private sendTo(gateway: string, players: string[], frame: StampedFrame): void {
    const { bus, node } = this.options;
    const missed = (lost: readonly string[]): void => {
      this.routes.forget(lost);
      this.broadcast(lost, frame);
    };
    let answer: Promise<Uint8Array>;
    try {
      answer = bus.request(nodePushSubject(gateway), pack({ from: node, players, frame }), {
        timeoutMs: directPushTimeoutMs,
      });
    } catch {
      return; // a closed bus: the node is stopping
    }
    answer.then(
      (bytes) => {
        try {
          missed(decodeValue("push answer", missedSchema, bytes).missed);
        } catch {
          missed(players);
        }
      },
      () => {
        missed(players);
      },
    );
  }

  private broadcast(players: readonly string[], frame: StampedFrame): void {
    if (players.length === 0) return;
    this.publish(pushRelaySubject, pack({ from: this.options.node, players, frame }));
  }

  private publish(subject: string, data: Uint8Array): void {
    try {
      this.options.bus.publish(subject, data);
    } catch {
      // A closed bus: the node is stopping; the push is lost as it would be to a closed socket.
    }
  }
}

type Relayed = z.infer<typeof relayedSchema>;
