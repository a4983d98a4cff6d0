import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { fetchDebianPackage } from "./debian-nats-package.ts";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type NatsVersion,
  isSupportedNatsVersion,
  minimumNatsVersion,
  parseNatsVersion,
} from "../../fleet/index.ts";

const run = promisify(execFile);

/** The project's own cache: `<repo>/.foyer/nats` (`.foyer/` is gitignored). */
export const natsCacheDir = fileURLToPath(new URL("../../.foyer/nats/", import.meta.url));

/** Where to look for a nats-server, and what to report while fetching one. */
export interface EnsureNatsServerOptions {
  /** The environment to read NATS_SERVER_BIN and PATH from (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** The cache folder (default `<repo>/.foyer/nats`). */
  readonly cacheDir?: string;
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
}

/** A nats-server binary and the version it reports. */
export interface NatsServerBinary {
  readonly path: string;
  readonly version: NatsVersion;
}

/** Why no usable nats-server was found or fetched; the message says what to do. */
export class NatsServerMissingError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NatsServerMissingError";
  }
}

/** Returns the path of a nats-server >= 2.10 (see findNatsServer). */
export async function ensureNatsServer(options: EnsureNatsServerOptions = {}): Promise<string> {
  return (await findNatsServer(options)).path;
}

/**
 * Finds a nats-server >= 2.10, in this order: `NATS_SERVER_BIN` (which must then work: no fallback), a
 * `nats-server` on PATH, the project's cache, and on Debian the trixie package fetched into the cache
 * with a private apt configuration (the system's package sources are left alone).
 */
export async function findNatsServer(options: EnsureNatsServerOptions = {}): Promise<NatsServerBinary> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? natsCacheDir;
  const log = options.log ?? ((): void => undefined);
  const named = env.NATS_SERVER_BIN;
  if (named !== undefined && named !== "") {
    const version = await versionOf(named);
    if (version === null) {
      throw new NatsServerMissingError(`NATS_SERVER_BIN=${named} does not run as \`nats-server --version\``);
    }
    if (!isSupportedNatsVersion(version.text)) {
      throw new NatsServerMissingError(
        `NATS_SERVER_BIN=${named} is nats-server ${version.text}; Foyer needs >= ${minimumNatsVersion}`,
      );
    }
    return { path: named, version };
  }
  const tooOld: string[] = [];
  const onPath = await findOnPath("nats-server", env.PATH ?? "");
  if (onPath !== null) {
    const found = await usable(onPath, tooOld);
    if (found !== null) return found;
  }
  const cached = await usable(cachedBinary(cacheDir), tooOld);
  if (cached !== null) return cached;
  if (await isDebian()) {
    try {
      await fetchDebianPackage(cacheDir, log);
    } catch (error) {
      throw new NatsServerMissingError(
        `no nats-server >= ${minimumNatsVersion} found, and fetching Debian trixie's package failed ` +
          `(${error instanceof Error ? error.message : String(error)}). Install nats-server 2.10 or newer ` +
          "and set NATS_SERVER_BIN to its path.",
        { cause: error },
      );
    }
    const fetched = await usable(cachedBinary(cacheDir), tooOld);
    if (fetched !== null) return fetched;
  }
  throw new NatsServerMissingError(
    `no nats-server >= ${minimumNatsVersion} found${tooOld.length > 0 ? ` (too old: ${tooOld.join(", ")})` : ""}. ` +
      "Install nats-server 2.10 or newer (https://github.com/nats-io/nats-server/releases or your package " +
      "manager) and set NATS_SERVER_BIN to its path, or put it on PATH. On Debian, " +
      "`npx tsx ops/nats/install.ts` fetches trixie's package into .foyer/nats.",
  );
}

/** The binary inside the unpacked Debian package. */
function cachedBinary(cacheDir: string): string {
  return join(cacheDir, "root", "usr", "sbin", "nats-server");
}

/** The version a binary reports, or null when it does not run. */
export async function versionOf(path: string): Promise<NatsVersion | null> {
  try {
    const { stdout, stderr } = await run(path, ["--version"], { timeout: 10_000 });
    return parseNatsVersion(`${stdout}${stderr}`);
  } catch {
    return null;
  }
}

async function usable(path: string, tooOld: string[]): Promise<NatsServerBinary | null> {
  if (!(await isExecutable(path))) return null;
  const version = await versionOf(path);
  if (version === null) return null;
  if (isSupportedNatsVersion(version.text)) return { path, version };
  tooOld.push(`${path} is ${version.text}`);
  return null;
}

async function findOnPath(name: string, path: string): Promise<string | null> {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function isDebian(): Promise<boolean> {
  try {
    await readFile("/etc/debian_version", "utf8");
  } catch {
    return false;
  }
  const path = process.env.PATH ?? "";
  return (await findOnPath("apt-get", path)) !== null && (await findOnPath("dpkg-deb", path)) !== null;
}
