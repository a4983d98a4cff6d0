import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../ops/config.ts";
import { isDevMode, tokenKeysOf } from "../../ops/node/dev-mode.ts";
import { isLoopbackHost } from "../../ops/node/loopback-host.ts";

/** A logger whose lines the test reads: level and message of each. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString("utf8")) as { level: number; msg: string });
      done();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

const errorLevel = 50;

describe("dev mode", () => {
  it("knows which listen addresses only this machine reaches", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "game.example", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it("warns, and on a non-loopback address warns at error level, but still starts", () => {
    const local = capturingLogger();
    expect(tokenKeysOf(loadConfig({}, {}), local.log)).toHaveLength(1);
    expect(local.lines.some((l) => l.msg.includes("DEV MODE"))).toBe(true);
    expect(local.lines.some((l) => l.level >= errorLevel)).toBe(false);

    const exposed = capturingLogger();
    expect(tokenKeysOf(loadConfig({ host: "0.0.0.0" }, {}), exposed.log)).toHaveLength(1);
    const loud = exposed.lines.filter((l) => l.level >= errorLevel);
    expect(loud).toHaveLength(1);
    expect(loud[0]?.msg).toContain("NON-LOOPBACK");
  });

  it("says nothing of dev mode when token keys are given", () => {
    const keyed = capturingLogger();
    const config = loadConfig({ host: "0.0.0.0", tokenKeys: "k1:0123456789abcdefXYZ" }, {});
    expect(tokenKeysOf(config, keyed.log)).toEqual([{ id: "k1", secret: "0123456789abcdefXYZ" }]);
    expect(keyed.lines).toEqual([]);
  });

  it("serves dev tokens without keys, or with keys only when --dev-tokens asks, never in production", () => {
    const key = "k1:0123456789abcdefXYZ";
    expect(isDevMode(loadConfig({}, {}))).toBe(true);
    expect(isDevMode(loadConfig({ tokenKeys: key }, {}))).toBe(false);
    expect(isDevMode(loadConfig({ tokenKeys: key, devTokens: "true" }, {}))).toBe(true);
    const production = {
      tokenKeys: key,
      devTokens: "true",
      production: "true",
      sessionSecret: "s".repeat(20),
    };
    expect(isDevMode(loadConfig(production, {}))).toBe(false);
  });
});
