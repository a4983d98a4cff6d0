import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A Foyer node running as its own process, and what it printed when it started. */
export interface NodeProcess {
  readonly id: string;
  readonly child: ChildProcess;
  /** Its public WebSocket URL, once it listens. */
  readonly url: Promise<string>;
  /** Its admin API's URL (`foyer status --admin`). */
  readonly admin: Promise<string>;
  /** Resolves with the exit code (null after a signal) when the process ends. */
  readonly exited: Promise<number | null>;
  /** Everything it printed on stdout and stderr so far (for a failing test's message). */
  output(): string;
}

/** How to start one: the fleet it joins and any other `foyer node` flags. */
export interface NodeProcessOptions {
  readonly id: string;
  readonly natsUrls: readonly string[];
  readonly natsReplicas: number;
  /** Shared by every node of a fleet: `--token-keys` and `--session-secret`. */
  readonly tokenKeys: string;
  readonly sessionSecret: string;
  /** More flags, by name (`--failure-timeout-ms` → `failure-timeout-ms`). */
  readonly flags?: Readonly<Record<string, string>>;
  /** Forward the node's stderr to this process's (default: keep it in `output()` only). */
  readonly inheritStderr?: boolean;
  /** Arguments for Node itself, before the CLI's (`--expose-gc`, `--import <preload>`). */
  readonly nodeArgs?: readonly string[];
}

const cli = fileURLToPath(new URL("../bin/foyer.js", import.meta.url));

/**
 * Starts `foyer node` as a child process in a fleet, on free ports (game and admin). `foyer cluster`, the
 * cluster tests and the chaos harness use it; tests kill it with `kill -9` or freeze it with SIGSTOP.
 */
export function startNodeProcess(options: NodeProcessOptions): NodeProcess {
  const flags: Record<string, string> = {
    "node-id": options.id,
    port: "0",
    "admin-port": "0",
    nats: options.natsUrls.join(","),
    "nats-replicas": String(options.natsReplicas),
    "token-keys": options.tokenKeys,
    "session-secret": options.sessionSecret,
    "dev-tokens": "true",
    "log-level": "warn",
    ...options.flags,
  };
  const args = [
    ...(options.nodeArgs ?? []),
    cli,
    "node",
    ...Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value]),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", options.inheritStderr === true ? "inherit" : "pipe"],
  });
  let seen = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    seen += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    seen += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  /** The first match of `pattern` in what the node printed. */
  const printed = (pattern: RegExp): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const look = (): void => {
        const match = pattern.exec(seen);
        if (match?.[1]) {
          child.stdout?.off("data", look);
          resolve(match[1]);
        }
      };
      child.stdout?.on("data", look);
      void exited.then(() => {
        reject(new Error(`node ${options.id} exited before it listened:\n${seen.slice(-2_000)}`));
      });
    });
  const url = printed(/listening on (\S+)/);
  const admin = printed(/Admin API: (\S+)/);
  // A node killed on purpose never prints them: that is only a failure for a caller who waits.
  url.catch(() => undefined);
  admin.catch(() => undefined);
  return {
    id: options.id,
    child,
    url,
    admin,
    exited,
    output: () => seen,
  };
}
