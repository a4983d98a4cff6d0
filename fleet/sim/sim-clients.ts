import type { OpAnswer, SimNode } from "./sim-node.ts";
import type { SimRandom } from "./sim-random.ts";
import type { VirtualLoop } from "./virtual-loop.ts";

export interface SimClientsOptions {
  readonly loop: VirtualLoop;
  readonly random: SimRandom;
  readonly keys: number;
  /** Keys are created at random times between these. */
  readonly createFrom: number;
  readonly createUntil: number;
  /** No new op is sent after this (unacknowledged ones are still retried). */
  readonly opsUntil: number;
  /** Running processes. */
  readonly nodes: () => readonly SimNode[];
  /** The process a key's claim names, as a router would find it. */
  readonly owner: (key: string) => SimNode | undefined;
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
  private readonly options: SimClientsOptions;

  constructor(options: SimClientsOptions) {
    this.options = options;
    this.keys = Array.from({ length: options.keys }, (_, i) => `lobby/K${i + 1}`);
  }

  start(): void {
    const { loop, random } = this.options;
    for (const key of this.keys) {
      loop.schedule(random.between(this.options.createFrom, this.options.createUntil), () => {
        this.create(key, 3);
      });
    }
  }

  private create(key: string, triesLeft: number): void {
    const { loop, random, nodes } = this.options;
    const live = nodes();
    if (live.length === 0) {
      if (triesLeft > 0)
        loop.schedule(loop.now + 1_000, () => {
          this.create(key, triesLeft - 1);
        });
      return;
    }
    const node = random.pick(live);
    this.send(node, () => {
      void node.create(key).then((ok) => {
        this.reply(() => {
          if (ok) {
            this.created.push(key);
            this.options.log(`client created ${key} on ${node.identity.node}`);
            this.nextOp(key, 1);
          } else if (triesLeft > 0 && this.options.owner(key) === undefined) {
            loop.schedule(loop.now + 1_000, () => {
              this.create(key, triesLeft - 1);
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

  private sendOp(key: string, op: string, answer: (answer: OpAnswer) => void): void {
    const { random, nodes, owner } = this.options;
    const live = nodes();
    const node = random.chance(0.85) ? owner(key) : live.length > 0 ? random.pick(live) : undefined;
    if (node === undefined) return;
    this.send(node, () => {
      node.receive(key, op, (a) => {
        this.reply(() => {
          answer(a);
        });
      });
    });
  }

  /** A message to a node: it arrives after a network delay, and waits while the node is paused. */
  private send(node: SimNode, deliver: () => void): void {
    const { loop, random } = this.options;
    loop.schedule(loop.now + random.between(1, 20), deliver, node.host);
  }

  /** A node's answer reaches the client after a network delay. */
  private reply(deliver: () => void): void {
    const { loop, random } = this.options;
    loop.schedule(loop.now + random.between(1, 20), deliver);
  }
}
