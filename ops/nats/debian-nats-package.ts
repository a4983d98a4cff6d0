import { execFile } from "node:child_process";
import { access, mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Debian's archive key, which signs trixie as well as bookworm. */
const keyring = "/usr/share/keyrings/debian-archive-keyring.gpg";
/** How long a second process waits for another's download before giving up. */
const lockWaitMs = 5 * 60_000;

/**
 * Fetches Debian trixie's `nats-server` package (2.10.x; it runs on bookworm, needing only libc6 >= 2.34)
 * and unpacks it to `<cacheDir>/root`, with a private apt configuration under `<cacheDir>/apt`: its own
 * sources list, package lists and download cache. The system's sources, lists and dpkg state are not
 * touched and nothing is installed. Several processes may call this at once: one downloads, the others
 * wait for it.
 */
export async function fetchDebianPackage(cacheDir: string, log: (line: string) => void): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  const release = await lock(join(cacheDir, "install.lock"));
  try {
    const binary = join(cacheDir, "root", "usr", "sbin", "nats-server");
    if (await exists(binary)) return; // another process fetched it while we waited
    const apt = join(cacheDir, "apt");
    await mkdir(join(apt, "lists", "partial"), { recursive: true });
    await mkdir(join(apt, "cache", "archives", "partial"), { recursive: true });
    const mirror = await debianMirror();
    await writeFile(join(apt, "sources.list"), `deb [signed-by=${keyring}] ${mirror} trixie main\n`);
    const options = [
      `Dir::Etc::SourceList=${join(apt, "sources.list")}`,
      "Dir::Etc::SourceParts=/dev/null",
      `Dir::State::Lists=${join(apt, "lists")}`,
      `Dir::Cache=${join(apt, "cache")}`,
    ].flatMap((option) => ["-o", option]);
    log(`fetching nats-server from Debian trixie (${mirror}) into ${cacheDir}`);
    await step("apt-get", [...options, "update"], apt);
    for (const name of await readdir(apt)) {
      if (name.endsWith(".deb")) await rm(join(apt, name));
    }
    await step("apt-get", [...options, "download", "nats-server/trixie"], apt);
    const deb = (await readdir(apt)).find((name) => name.startsWith("nats-server_") && name.endsWith(".deb"));
    if (deb === undefined) throw new Error("apt-get download left no nats-server_*.deb");
    // Unpack beside the target and rename, so a half-unpacked tree is never taken for the cache.
    const unpacking = join(cacheDir, `root.${process.pid}`);
    await rm(unpacking, { recursive: true, force: true });
    await step("dpkg-deb", ["-x", join(apt, deb), unpacking], apt);
    await rm(join(cacheDir, "root"), { recursive: true, force: true });
    await rename(unpacking, join(cacheDir, "root"));
    log(`unpacked ${deb}`);
  } finally {
    await release();
  }
}

/** The machine's own Debian mirror (first `URIs:` of debian.sources, else sources.list), else deb.debian.org. */
async function debianMirror(): Promise<string> {
  const sources = await readFile("/etc/apt/sources.list.d/debian.sources", "utf8").catch(() => "");
  const deb822 = /^URIs:\s*(\S+)/m.exec(sources)?.[1];
  if (deb822 !== undefined) return deb822;
  const list = await readFile("/etc/apt/sources.list", "utf8").catch(() => "");
  const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/m.exec(list)?.[1];
  return oneLine ?? "http://deb.debian.org/debian";
}

async function step(command: string, args: string[], cwd: string): Promise<void> {
  try {
    await run(command, args, { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    const tail = typeof stderr === "string" ? stderr.trim().split("\n").slice(-5).join("\n") : "";
    throw new Error(`${command} ${args.at(-1) ?? ""} failed${tail === "" ? "" : `:\n${tail}`}`, {
      cause: error,
    });
  }
}

/** An exclusive lock by `mkdir`; a lock whose holder has died is taken over. */
async function lock(path: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + lockWaitMs;
  for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      await mkdir(path);
      await writeFile(join(path, "pid"), String(process.pid));
      return () => rm(path, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(await readFile(join(path, "pid"), "utf8").catch(() => "NaN"));
    if (Number.isInteger(holder) && !isAlive(holder)) {
      await rm(path, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${path} is held by process ${holder}; gave up waiting`);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
