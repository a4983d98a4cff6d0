import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsServerMissingError, findNatsServer } from "../../ops/nats/index.ts";

describe("finding a nats-server", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "foyer-find-nats-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A stand-in binary that answers `--version` like nats-server does. */
  async function fakeServer(name: string, version: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, `#!/bin/sh\necho "nats-server: v${version}"\n`);
    await chmod(path, 0o755);
    return path;
  }

  it("takes NATS_SERVER_BIN when it is new enough", async () => {
    const bin = await fakeServer("new", "2.10.27");
    const found = await findNatsServer({ env: { NATS_SERVER_BIN: bin, PATH: "" }, cacheDir: dir });
    expect(found).toMatchObject({ path: bin, version: { text: "2.10.27" } });
  });

  it("refuses an old or broken NATS_SERVER_BIN, naming the setting, without looking elsewhere", async () => {
    const old = await fakeServer("old", "2.9.10");
    await expect(findNatsServer({ env: { NATS_SERVER_BIN: old }, cacheDir: dir })).rejects.toThrow(
      /NATS_SERVER_BIN=.*2\.9\.10.*needs >= 2\.10\.0/,
    );
    await expect(
      findNatsServer({ env: { NATS_SERVER_BIN: join(dir, "missing") }, cacheDir: dir }),
    ).rejects.toBeInstanceOf(NatsServerMissingError);
  });

  it("takes a nats-server on PATH only when it is new enough", async () => {
    const pathDir = join(dir, "bin");
    await mkdir(pathDir, { recursive: true });
    const bin = await fakeServer("bin/nats-server", "2.11.1");
    expect((await findNatsServer({ env: { PATH: pathDir }, cacheDir: dir })).path).toBe(bin);
  });
});
