import { randomBytes } from "node:crypto";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";

/** The cluster a chaos run breaks. */
export interface ChaosFleetOptions {
  readonly nodes: number;
  readonly nats: number;
  readonly failureTimeoutMs: number;
}

/** What a fault did: `applied` false for a drain the node could not do (the note says why). */
export interface FaultOutcome {
  readonly applied: boolean;
  readonly note: string;
}

/** One node slot: the current process and the ports every incarnation reuses, so bootstrap URLs stay valid. */
interface NodeSlot {
  readonly id: string;
  process: NodeProcess;
  url: string;
  admin: string;
  state: "up" | "killed" | "stopped" | "draining";
  /** Every incarnation's output, for a failing run's logs. */
  readonly outputs: NodeProcess[];
}

const restartAttempts = 6;

/**
 * A local fleet for chaos: nats-servers and Foyer node processes on free ports, and the faults applied to
 * them. A node comes back on its old ports with its old node id (a new incarnation), so the bots'
 * bootstrap URLs keep pointing at the whole fleet.
 */
export class ChaosFleet {
  private readonly shared = {
    tokenKeys: `chaos:${randomBytes(24).toString("base64url")}`,
    sessionSecret: randomBytes(24).toString("base64url"),
  };
  private readonly slots: NodeSlot[] = [];
  /** Set by `stop()`: a drained node that exits afterwards (stop killed it) is not started again. */
  private stopped = false;

  private constructor(
    readonly nats: NatsLauncher,
    private readonly options: ChaosFleetOptions,
  ) {}

  /** Starts the nats-servers, then each node once the previous one listens (they open the same buckets). */
  static async start(options: ChaosFleetOptions): Promise<ChaosFleet> {
    const nats = await startNats({ servers: options.nats });
    const fleet = new ChaosFleet(nats, options);
    try {
      for (let i = 0; i < options.nodes; i += 1) {
        const id = `n${i + 1}`;
        const process = fleet.spawn(id, {});
        const [url, admin] = await Promise.all([process.url, process.admin]);
        fleet.slots.push({ id, process, url, admin, state: "up", outputs: [process] });
      }
    } catch (error) {
      await fleet.stop();
      throw error;
    }
    return fleet;
  }

  /** The token key bots sign with: `id:secret`. */
  get tokenKey(): { id: string; secret: string } {
    const [id = "", secret = ""] = this.shared.tokenKeys.split(":");
    return { id, secret };
  }

  /** Every node's WebSocket URL (stable across restarts). */
  get urls(): string[] {
    return this.slots.map((s) => s.url);
  }

  nodeId(i: number): string {
    return this.slot(i).id;
  }

  /** Nodes that are running and not frozen. */
  get nodesUp(): number {
    return this.slots.filter((s) => s.state === "up").length;
  }

  get natsUp(): number {
    return this.nats.urls.filter((_, i) => this.nats.isRunning(i)).length;
  }

  isNodeUp(i: number): boolean {
    return this.slot(i).state === "up";
  }

  /** kill -9 of node `i`. */
  async kill(i: number): Promise<void> {
    const slot = this.slot(i);
    slot.state = "killed";
    slot.process.child.kill("SIGKILL");
    await slot.process.exited;
  }

  /** SIGSTOP of node `i`: it keeps its sockets open and says nothing. */
  freeze(i: number): void {
    const slot = this.slot(i);
    slot.state = "stopped";
    slot.process.child.kill("SIGSTOP");
  }

  /** SIGCONT of a frozen node: it finds itself declared dead and comes back as a new incarnation. */
  thaw(i: number): void {
    const slot = this.slot(i);
    slot.process.child.kill("SIGCONT");
    slot.state = "up";
  }

  /**
   * Starts node `i` again with its node id and ports. A start can be refused while its old incarnation still
   * looks alive, or hit a port not yet free: tried again a few times, a second apart.
   */
  async restart(i: number): Promise<void> {
    const slot = this.slot(i);
    const ports = { port: portOf(slot.url), "admin-port": portOf(slot.admin) };
    for (let attempt = 1; ; attempt += 1) {
      if (this.stopped) return; // nothing started after stop() would ever be stopped
      const process = this.spawn(slot.id, ports);
      slot.outputs.push(process);
      try {
        await process.url;
        slot.process = process;
        slot.state = "up";
        return;
      } catch (error) {
        if (attempt >= restartAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  /**
   * Asks node `i` to drain (`POST /drain`). A node that cannot drain yet answers 501: nothing was applied.
   * A drain that starts ends with the node leaving; it is restarted when it exits, like a rolling deploy.
   */
  async drain(i: number): Promise<FaultOutcome> {
    const slot = this.slot(i);
    let response: Response;
    try {
      response = await fetch(`${slot.admin}/drain`, { method: "POST" });
    } catch (error) {
      return { applied: false, note: `the admin API did not answer: ${String(error)}` };
    }
    const body = await response.text();
    if (response.status !== 202) return { applied: false, note: `${response.status} ${body}` };
    slot.state = "draining";
    const process = slot.process;
    void process.exited
      .then(async () => {
        if (slot.process === process && slot.state === "draining" && !this.stopped) await this.restart(i);
      })
      .catch(() => {
        // Refused every time (its old incarnation still looked alive): down, as after a kill, so the
        // runner waits for it and healAll starts it again. Thrown on, it ended the whole run.
        if (slot.process === process) slot.state = "killed";
      });
    return { applied: true, note: body };
  }

  /** kill -9 of nats-server `i`. */
  async killNats(i: number): Promise<void> {
    await this.nats.kill(i, "SIGKILL");
  }

  async restartNats(i: number): Promise<void> {
    await this.nats.restart(i);
  }

  /** Brings back everything that is down: frozen nodes thawed, killed ones and nats-servers restarted. */
  async healAll(): Promise<void> {
    for (let i = 0; i < this.nats.size; i += 1) if (!this.nats.isRunning(i)) await this.restartNats(i);
    for (let i = 0; i < this.slots.length; i += 1) {
      const slot = this.slot(i);
      if (slot.state === "stopped") this.thaw(i);
      else if (slot.state === "killed") await this.restart(i);
    }
  }

  /** Each node id with what every incarnation of it printed. */
  logs(): Map<string, string> {
    return new Map(
      this.slots.map((s) => [s.id, s.outputs.map((p) => p.output()).join("\n--- restart ---\n")]),
    );
  }

  /** Stops every process (a frozen one is thawed first, so SIGKILL is delivered at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const slot of this.slots) {
      for (const p of slot.outputs) {
        p.child.kill("SIGCONT");
        p.child.kill("SIGKILL");
      }
    }
    await Promise.all(this.slots.flatMap((s) => s.outputs.map((p) => p.exited)));
    await this.nats.stop();
  }

  private spawn(id: string, ports: Readonly<Record<string, string>>): NodeProcess {
    return startNodeProcess({
      id,
      natsUrls: this.nats.urls,
      natsReplicas: Math.min(3, this.options.nats),
      ...this.shared,
      flags: {
        "failure-timeout-ms": String(this.options.failureTimeoutMs),
        // A moved lobby is relayed to members still on the node it left for 5 s, not 30: a member the
        // move left behind goes deaf while the drain is still open, where the hearing audit sees it.
        "relay-after-move-ms": "5000",
        "max-connections-per-ip": "100000",
        "log-level": "info",
        ...ports,
      },
    });
  }

  private slot(i: number): NodeSlot {
    const slot = this.slots[i];
    if (!slot) throw new RangeError(`no node ${i} (of ${this.slots.length})`);
    return slot;
  }
}

function portOf(url: string): string {
  return new URL(url).port;
}
