// An embedded `foyer node` in a process of its own, for the benches of this folder that measure Foyer as
// their Colyseus twins measure Colyseus's server (child.js): with --expose-gc and a preload that runs a
// full GC on SIGUSR2, limits raised so one bench process may open thousands of sockets, its heap and RSS
// read from its /metrics and its CPU time from /proc/<pid>/stat. Uses only the root's code.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createNodeClient, type FoyerClient } from "../../../gateway/index.ts";
import { benchToken, benchTokenKeys } from "../bench-key.ts";
import { cpuSeconds, cpuSplit } from "./proc.js";

const cli = fileURLToPath(new URL("../../bin/foyer.js", import.meta.url));
const preload = fileURLToPath(new URL("./gc-on-signal.mjs", import.meta.url));

export interface FoyerNode {
  readonly child: ChildProcess;
  readonly url: string;
  readonly admin: string;
  /** Heap used after a full GC, RSS, external memory and the heap V8 holds, from the node's /metrics. */
  memory(): Promise<{ heap: number; rss: number; external: number; heapTotal: number }>;
  /** User + system CPU seconds the node process has used so far. */
  cpuSeconds(): number;
  /** The system part of `cpuSeconds` (time in the kernel: system calls, the loopback's delivery). */
  systemCpuSeconds(): number;
  /** A player's token (HS256, an hour), signed here so signing is never timed. */
  token(player: string): string;
  /** A new SDK client of the node (not connected yet) for the given token; `livenessMs` as the SDK's. */
  client(token: string, livenessMs?: number): FoyerClient;
  stop(): void;
}

// FOYER_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR": extra flags for the node process (a profile of the
// server alone); the node is then stopped with SIGTERM, so that it exits and writes its profile.
const profileFlags = (process.env.FOYER_BENCH_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "");

export async function startFoyerNode(): Promise<FoyerNode> {
  const child = spawn(
    process.execPath,
    [
      "--expose-gc",
      ...profileFlags,
      "--import",
      preload,
      cli,
      "node",
      ...["--port", "0", "--admin-port", "0", "--token-keys", benchTokenKeys],
      ...["--max-connections-per-ip", "100000", "--rate-per-second", "100000", "--rate-burst", "100000"],
      ...["--log-level", "warn"],
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let printed = "";
  const { url, admin } = await new Promise<{ url: string; admin: string }>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
      const url = /listening on (\S+)/.exec(printed)?.[1];
      const admin = /Admin API: (\S+)/.exec(printed)?.[1];
      if (url && admin) resolve({ url, admin });
    });
    child.once("exit", (code) => reject(new Error(`node exited (${code}): ${printed}`)));
  });
  // Whatever happens, leave no node process behind.
  const stopNode = (error: unknown): void => {
    console.error(error);
    child.kill("SIGKILL");
    process.exit(1);
  };
  process.on("uncaughtException", stopNode);
  process.on("unhandledRejection", stopNode);
  return {
    child,
    url,
    admin,
    async memory() {
      child.kill("SIGUSR2");
      await new Promise((r) => setTimeout(r, 500));
      const text = await (await fetch(`${admin}/metrics`)).text();
      const read = (name: string): number =>
        Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? NaN);
      return {
        heap: read("nodejs_heap_size_used_bytes"),
        rss: read("process_resident_memory_bytes"),
        external: read("nodejs_external_memory_bytes"),
        heapTotal: read("nodejs_heap_size_total_bytes"),
      };
    },
    cpuSeconds: () => cpuSeconds(child.pid ?? 0),
    systemCpuSeconds: () => cpuSplit(child.pid ?? 0).system,
    token: (player) => benchToken(player),
    client: (token, livenessMs) =>
      createNodeClient({
        urls: [url],
        token,
        connectTimeoutMs: 60_000,
        callTimeoutMs: 60_000,
        ...(livenessMs === undefined ? {} : { livenessMs }),
      }),
    stop: () => child.kill(profileFlags.length > 0 ? "SIGTERM" : "SIGKILL"),
  };
}
