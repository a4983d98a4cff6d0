import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsAuth, NatsTls } from "../../fleet/index.ts";
import { ensureNatsServer } from "./ensure-nats-server.ts";
import { nkeyPublicKey } from "./nkey.ts";
import { freePorts } from "./free-ports.ts";
import {
  type NatsServerConfig,
  type NatsServerOperator,
  type NatsServerTls,
  type NatsServerUser,
  natsConfigText,
} from "./nats-config.ts";
import { BadBootstrapError, waitListening, waitNatsReady } from "./nats-readiness.ts";

/** What to start. */
export interface StartNatsOptions {
  /** 1 → one server; more → a full-mesh JetStream cluster of that many (3 for R3 buckets). Default 1. */
  readonly servers?: number;
  /** The nats-server binary (default: ensureNatsServer()). */
  readonly bin?: string;
  readonly host?: string;
  readonly clusterName?: string;
  /** How long a server may take to accept a KV write after a restart, or at the last start attempt (30 s). */
  readonly readyTimeoutMs?: number;
  /** `sync_interval: always` on every server. */
  readonly syncAlways?: boolean;
  /** Give each server a monitoring (HTTP) port too. */
  readonly monitoring?: boolean;
  /**
   * Clients must log in as one of these (an NKey user by its seed; the config holds its public key). The
   * launcher's own readiness probe logs in as the first.
   */
  readonly users?: readonly NatsLocalUser[];
  /** Clients must speak TLS: the servers' side, and the TLS the launcher's own probe connects with. */
  readonly tls?: { readonly server: NatsServerTls; readonly client: NatsTls };
  /** Operator mode (JWT auth), instead of `users`. */
  readonly operator?: NatsLocalOperator;
}

/**
 * Servers in operator mode: the operator and accounts they trust, and the `.creds` text the launcher's
 * own probe logs in with (a user of an account whose limits allow JetStream).
 */
export interface NatsLocalOperator extends NatsServerOperator {
  readonly probeCreds: string;
}

/** The operator part of a server's config (the probe's creds stay with the launcher). */
function serverOperator(operator: NatsLocalOperator): NatsServerOperator {
  return {
    jwt: operator.jwt,
    accounts: operator.accounts,
    ...(operator.systemAccount === undefined ? {} : { systemAccount: operator.systemAccount }),
  };
}

/** What the launcher's readiness probe logs in with: the first user, or the operator's probe user. */
function probeAuth(options: StartNatsOptions): NatsAuth {
  const first = options.users?.[0];
  const credentials: NatsAuth =
    options.operator !== undefined
      ? { creds: options.operator.probeCreds }
      : first === undefined
        ? {}
        : "nkeySeed" in first
          ? first
          : { user: first.user, pass: first.password };
  return { ...credentials, ...(options.tls === undefined ? {} : { tls: options.tls.client }) };
}

/** A client account of a local server: a user and password, or an NKey user given by its seed. */
export type NatsLocalUser =
  { readonly user: string; readonly password: string } | { readonly nkeySeed: string };

/** How a local user appears in the server's config: an NKey user by its public key only. */
function serverUser(account: NatsLocalUser): NatsServerUser {
  if (!("nkeySeed" in account)) return account;
  return { nkey: nkeyPublicKey(account.nkeySeed) };
}

const startAttempts = 3;
/** A fresh start normally takes 0.5–1.7 s (3 servers): past this it counts as a bad bootstrap. */
const freshStartMs = 8_000;
const logLinesKept = 200;

interface Slot {
  readonly config: NatsServerConfig;
  readonly configPath: string;
  readonly url: string;
  process: ChildProcess | undefined;
  exited: Promise<void>;
  exitStatus: string | undefined;
  readonly log: string[];
}

/**
 * Starts nats-servers on loopback with free ports and temporary JetStream dirs, and returns once each
 * accepts a KV write. A start that hits a taken port or a bad JetStream bootstrap is done again from
 * scratch (up to 3 times). Always `stop()` it: that removes the temp dirs (an exit hook does the same
 * if the process ends first).
 */
export async function startNats(options: StartNatsOptions = {}): Promise<NatsLauncher> {
  const bin = options.bin ?? (await ensureNatsServer());
  for (let attempt = 1; ; attempt += 1) {
    const last = attempt === startAttempts;
    const launcher = await NatsLauncher.prepare(bin, options);
    try {
      await launcher.startAll(last ? (options.readyTimeoutMs ?? 30_000) : freshStartMs);
      return launcher;
    } catch (error) {
      const portTaken = launcher.logTail(logLinesKept).includes("address already in use");
      await launcher.stop();
      if (last || !(portTaken || error instanceof BadBootstrapError)) {
        throw new Error(`nats-server did not start:\n${launcher.logTail()}`, { cause: error });
      }
    }
  }
}

/** Local nats-servers: one, or a full-mesh JetStream cluster. */
export class NatsLauncher {
  /** Milliseconds from spawning the first server to every one accepting a KV write. */
  startupMs = 0;
  private stopped = false;
  private readonly exitHook = (): void => {
    for (const slot of this.slots) slot.process?.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  };

  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly slots: readonly Slot[],
    private readonly readyTimeoutMs: number,
    private readonly auth: NatsAuth,
  ) {
    process.on("exit", this.exitHook);
  }

  /** Picks free ports and writes the config files into a new temp dir; starts nothing. */
  static async prepare(bin: string, options: StartNatsOptions): Promise<NatsLauncher> {
    const count = options.servers ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new TypeError(`invalid server count ${count}`);
    if (options.users !== undefined && options.operator !== undefined) {
      throw new TypeError("users and operator mode exclude each other");
    }
    const host = options.host ?? "127.0.0.1";
    const monitoring = options.monitoring === true;
    const clustered = count > 1;
    const ports = await freePorts(count * (1 + (clustered ? 1 : 0) + (monitoring ? 1 : 0)), host);
    const take = (): number => {
      const port = ports.shift();
      if (port === undefined) throw new Error("ran out of free ports");
      return port;
    };
    const plans = Array.from({ length: count }, (_, i) => ({
      name: `n${i + 1}`,
      port: take(),
      routePort: clustered ? take() : undefined,
      httpPort: monitoring ? take() : undefined,
    }));
    const routePorts = plans.flatMap((plan) => (plan.routePort === undefined ? [] : [plan.routePort]));
    const dir = await mkdtemp(join(tmpdir(), "foyer-nats-"));
    const slots: Slot[] = [];
    for (const plan of plans) {
      const config: NatsServerConfig = {
        name: plan.name,
        host,
        port: plan.port,
        storeDir: join(dir, plan.name),
        ...(plan.httpPort === undefined ? {} : { httpPort: plan.httpPort }),
        ...(options.users === undefined ? {} : { users: options.users.map(serverUser) }),
        ...(options.tls === undefined ? {} : { tls: options.tls.server }),
        ...(options.operator === undefined ? {} : { operator: serverOperator(options.operator) }),
        ...(options.syncAlways === true ? { syncAlways: true } : {}),
        ...(plan.routePort === undefined
          ? {}
          : { cluster: { name: options.clusterName ?? "foyer", port: plan.routePort, routePorts } }),
      };
      const configPath = join(dir, `${plan.name}.conf`);
      await writeFile(configPath, natsConfigText(config));
      const url = `nats://${host}:${plan.port}`;
      slots.push({
        config,
        configPath,
        url,
        process: undefined,
        exited: Promise.resolve(),
        exitStatus: "not started",
        log: [],
      });
    }
    return new NatsLauncher(bin, dir, slots, options.readyTimeoutMs ?? 30_000, probeAuth(options));
  }

  /** Client URLs, one per server, in order. */
  get urls(): string[] {
    return this.slots.map((slot) => slot.url);
  }

  get size(): number {
    return this.slots.length;
  }

  /** The client URL of server `i`. */
  url(i: number): string {
    return this.slot(i).url;
  }

  /** The config of server `i` (ports, store dir, `server_name`). */
  config(i: number): NatsServerConfig {
    return this.slot(i).config;
  }

  /** The process id of server `i`, or undefined while it is not running. */
  pid(i: number): number | undefined {
    return this.slot(i).process?.pid;
  }

  isRunning(i: number): boolean {
    return this.slot(i).process !== undefined;
  }

  /**
   * Spawns the servers one after another (each once it listens: starting three at once makes a bad
   * JetStream bootstrap ten times likelier) and waits until each accepts a KV write.
   */
  async startAll(timeoutMs: number): Promise<void> {
    const started = performance.now();
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < this.size; i += 1) {
      const slot = this.slot(i);
      this.spawn(i);
      await waitListening(slot.config.host, slot.config.port, deadline, () => slot.exitStatus);
    }
    await Promise.all(this.slots.map((_, i) => this.waitReady(i, { deadline, fresh: true })));
    this.startupMs = performance.now() - started;
  }

  /** Sends `signal` to server `i` (SIGKILL for a crash) and waits until it has exited. */
  async kill(i: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const slot = this.slot(i);
    slot.process?.kill(signal);
    await slot.exited;
  }

  /** Starts server `i` again on its ports and store (stopping it first if it runs); resolves when ready. */
  async restart(i: number): Promise<void> {
    if (this.isRunning(i)) await this.kill(i);
    this.spawn(i);
    await this.waitReady(i);
  }

  /** Resolves when server `i` accepts a KV write made through it (see waitNatsReady). */
  async waitReady(i: number, opts: { deadline?: number; fresh?: boolean } = {}): Promise<void> {
    const slot = this.slot(i);
    await waitNatsReady({
      name: slot.config.name,
      url: slot.url,
      replicas: this.size,
      deadline: opts.deadline ?? Date.now() + this.readyTimeoutMs,
      fresh: opts.fresh ?? false,
      exited: () => slot.exitStatus,
      auth: this.auth,
    });
  }

  /**
   * The `server_name` of the JetStream meta leader, as a running server's monitoring endpoint (`/jsz`)
   * reports it; undefined when none knows one. Needs `monitoring: true`.
   */
  async metaLeader(): Promise<string | undefined> {
    for (const slot of this.slots) {
      if (slot.process === undefined || slot.config.httpPort === undefined) continue;
      try {
        const response = await fetch(`http://${slot.config.host}:${slot.config.httpPort}/jsz`);
        const jsz = (await response.json()) as { meta_cluster?: { leader?: string } };
        const leader = jsz.meta_cluster?.leader;
        if (leader !== undefined && leader !== "") return leader;
      } catch {
        // this server does not answer: ask the next one
      }
    }
    return undefined;
  }

  /** The last `lines` lines each server wrote, for a failure message. */
  logTail(lines = 20): string {
    return this.slots
      .flatMap((slot) => slot.log.slice(-lines).map((line) => `[${slot.config.name}] ${line}`))
      .join("\n");
  }

  /** Stops every server (SIGTERM, then SIGKILL after 5 s) and removes the temp dirs. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const child = slot.process;
        if (child === undefined) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await slot.exited;
        clearTimeout(timer);
      }),
    );
    process.off("exit", this.exitHook);
    await rm(this.dir, { recursive: true, force: true });
  }

  private spawn(i: number): void {
    const slot = this.slot(i);
    if (this.stopped) throw new Error("the launcher is stopped");
    if (slot.process !== undefined) throw new Error(`nats-server ${slot.config.name} is running`);
    const child = spawn(this.bin, ["-c", slot.configPath], { stdio: ["ignore", "ignore", "pipe"] });
    slot.process = child;
    slot.exitStatus = undefined;
    let partial = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      slot.log.push(...lines);
      if (slot.log.length > logLinesKept) slot.log.splice(0, slot.log.length - logLinesKept);
    });
    slot.exited = new Promise((resolve) => {
      const ended = (status: string): void => {
        if (slot.process !== child) return;
        slot.process = undefined;
        slot.exitStatus = status;
        resolve();
      };
      child.once("exit", (code, signal) => {
        ended(signal ?? `code ${code}`);
      });
      child.once("error", (error) => {
        ended(error.message);
      });
    });
  }

  private slot(i: number): Slot {
    const slot = this.slots[i];
    if (slot === undefined) throw new RangeError(`no nats-server ${i} (of ${this.slots.length})`);
    return slot;
  }
}
