import type { MoveRecord } from "./sim-checks.ts";
import { type OpAnswer, joinOp, moveOp } from "./sim-ops.ts";
import { type PartyRecord, partyPlan } from "./sim-party.ts";
import type { SimProcess } from "./sim-process.ts";
import type { SimRandom } from "./sim-random.ts";
import type { VirtualLoop } from "./virtual-loop.ts";

export interface SimClientsOptions {
  readonly loop: VirtualLoop;
  readonly random: SimRandom;
  readonly keys: number;
  /** Players that join one lobby, then move to another through their registry key. */
  readonly movers: number;
  /** Real private lobbies (`lobby/R…`), each driven through its script (sim-party.ts). */
  readonly parties: number;
  /** Keys are created at random times between these. */
  readonly createFrom: number;
  readonly createUntil: number;
  /** No new op is sent after this (unacknowledged ones are still retried). */
  readonly opsUntil: number;
  /** Running processes. */
  readonly nodes: () => readonly SimProcess[];
  /** The process a key's claim names, as a router would find it. */
  readonly owner: (key: string) => SimProcess | undefined;
  readonly log: (line: string) => void;
}

/** How long a client waits for an answer before sending the op again, with the same id. */
const retryMs = 600;

/**
 * The players: one client per key creates it on some node, then sends ops one at a time to the node its
 * router names (now and then to a random one, a stale view), retrying each unacknowledged op with its id
 * until it is acknowledged. Clients never fail; the network between them and nodes only delays.
 */
export class SimClients {
  readonly keys: string[];
  readonly created: string[] = [];
  /** Moves whose intent the registry acknowledged. */
  readonly moves: MoveRecord[] = [];
  /** The party lobbies whose create was acknowledged, with how far their script got. */
  readonly parties: PartyRecord[] = [];
  private readonly options: SimClientsOptions;
  private readonly lobbies: string[];

  constructor(options: SimClientsOptions) {
    this.options = options;
    this.lobbies = Array.from({ length: options.keys }, (_, i) => `counter/K${i + 1}`);
    const registries = Array.from({ length: options.movers }, (_, i) => `player/P${i + 1}`);
    this.keys = [...this.lobbies, ...registries];
  }

  /** The party lobbies' keys (read back by the final check beside the counters). */
  get partyKeys(): string[] {
    return Array.from({ length: this.options.parties }, (_, i) => partyPlan(i + 1).key);
  }

  start(): void {
    const { loop, random } = this.options;
    for (const key of this.lobbies) {
      loop.schedule(random.between(this.options.createFrom, this.options.createUntil), () => {
        this.create(key, 3, () => {
          this.nextOp(key, 1);
        });
      });
    }
    for (let i = 0; i < this.options.parties; i++) {
      const plan = partyPlan(i + 1);
      loop.schedule(random.between(this.options.createFrom, this.options.createUntil), () => {
        this.create(
          plan.key,
          3,
          () => {
            const party: PartyRecord = { plan, acked: 0, inFlight: false };
            this.parties.push(party);
            this.nextStep(party);
          },
          plan.init,
        );
      });
    }
    if (this.lobbies.length < 2) return;
    for (let i = 0; i < this.options.movers; i++) {
      const player = `P${i + 1}`;
      const registry = `player/${player}`;
      const from = this.lobbies[i % this.lobbies.length] ?? "";
      const to = this.lobbies[(i + 1) % this.lobbies.length] ?? "";
      loop.schedule(random.between(this.options.createFrom, this.options.createUntil), () => {
        this.create(registry, 3, () => undefined);
      });
      loop.schedule(this.options.createUntil + random.between(0, 1_500), () => {
        this.move({ player, registry, from, to });
      });
    }
  }

  /**
   * A player joins `from`, then `to`, then tells its registry it moved (the intent the registry drives
   * until `from` confirms the leave) — waiting for the three keys to exist, each step retried with its id
   * until acknowledged.
   */
  private move(move: MoveRecord): void {
    const { loop } = this.options;
    const ready = [move.registry, move.from, move.to].every((key) => this.created.includes(key));
    if (!ready) {
      if (loop.now < this.options.opsUntil)
        loop.schedule(loop.now + 300, () => {
          this.move(move);
        });
      return;
    }
    this.options.log(`client ${move.player} moves ${move.from} → ${move.to}`);
    this.untilAcked(move.from, joinOp(move.player), () => {
      this.untilAcked(move.to, joinOp(move.player), () => {
        this.untilAcked(move.registry, moveOp(move.from), () => {
          this.moves.push(move);
          this.options.log(`client ${move.player} move recorded`);
        });
      });
    });
  }

  /** Sends a party's next script step until it is acknowledged, then the one after it. */
  private nextStep(party: PartyRecord): void {
    const { loop } = this.options;
    const step = party.plan.steps[party.acked];
    if (step === undefined || loop.now >= this.options.opsUntil) return;
    party.inFlight = true;
    this.untilAcked(party.plan.key, step, () => {
      party.acked++;
      party.inFlight = false;
      loop.schedule(loop.now + this.options.random.between(20, 150), () => {
        this.nextStep(party);
      });
    });
  }

  /** Sends `op` to `key` until it is acknowledged (same id every time), then `then`. */
  private untilAcked(key: string, op: string | object, then: () => void): void {
    const { loop } = this.options;
    let acked = false;
    const attempt = (): void => {
      if (acked) return;
      this.sendOp(key, op, (answer) => {
        if (answer !== "acked" || acked) return;
        acked = true;
        then();
      });
      loop.schedule(loop.now + retryMs, attempt);
    };
    attempt();
  }

  private create(key: string, triesLeft: number, then: () => void, init?: unknown): void {
    const { loop, random, nodes } = this.options;
    const live = nodes();
    if (live.length === 0) {
      if (triesLeft > 0)
        loop.schedule(loop.now + 1_000, () => {
          this.create(key, triesLeft - 1, then, init);
        });
      return;
    }
    const node = random.pick(live);
    this.send(node, () => {
      void node.create(key, init).then((ok) => {
        this.reply(() => {
          if (ok) {
            this.created.push(key);
            this.options.log(`client created ${key} on ${node.node}`);
            then();
          } else if (triesLeft > 0 && this.options.owner(key) === undefined) {
            loop.schedule(loop.now + 1_000, () => {
              this.create(key, triesLeft - 1, then, init);
            });
          }
        });
      });
    });
  }

  private nextOp(key: string, n: number): void {
    const { loop } = this.options;
    if (loop.now >= this.options.opsUntil) return;
    const op = `${key.slice(key.indexOf("/") + 1)}-${n}`;
    let acked = false;
    const attempt = (): void => {
      if (acked) return;
      this.sendOp(key, op, (answer) => {
        if (answer !== "acked" || acked) return;
        acked = true;
        loop.schedule(loop.now + this.options.random.between(20, 150), () => {
          this.nextOp(key, n + 1);
        });
      });
      loop.schedule(loop.now + retryMs, attempt);
    };
    attempt();
  }

  /** Sends one op to the key's owner (a counter's op id, or a lobby message as it stands). */
  private sendOp(key: string, op: string | object, answer: (answer: OpAnswer) => void): void {
    const { random, nodes, owner } = this.options;
    const live = nodes();
    const node = random.chance(0.85) ? owner(key) : live.length > 0 ? random.pick(live) : undefined;
    if (node === undefined) return;
    this.send(node, () => {
      node.receive(key, typeof op === "string" ? { type: "op", op } : op, (a) => {
        this.reply(() => {
          answer(a);
        });
      });
    });
  }

  /** A message to a node: it arrives after a network delay, and waits while the node is paused. */
  private send(node: SimProcess, deliver: () => void): void {
    const { loop, random } = this.options;
    loop.schedule(loop.now + random.between(1, 20), deliver, node.host);
  }

  /** A node's answer reaches the client after a network delay. */
  private reply(deliver: () => void): void {
    const { loop, random } = this.options;
    loop.schedule(loop.now + random.between(1, 20), deliver);
  }
}
