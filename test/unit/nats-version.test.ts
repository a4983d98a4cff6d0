import { describe, expect, it } from "vitest";
import {
  NatsVersionError,
  assertNatsVersion,
  isSupportedNatsVersion,
  kvFilterForPrefix,
  parseNatsVersion,
} from "../../fleet/index.ts";

describe("nats-server version", () => {
  it("parses what the server and `nats-server --version` report", () => {
    expect(parseNatsVersion("2.10.27")).toEqual({ major: 2, minor: 10, patch: 27, text: "2.10.27" });
    expect(parseNatsVersion("nats-server: v2.10.27\n")?.text).toBe("2.10.27");
    expect(parseNatsVersion("2.11.0-beta.1")).toMatchObject({ major: 2, minor: 11, patch: 0 });
    expect(parseNatsVersion("unknown")).toBeNull();
  });

  it("refuses anything older than 2.10.0, naming the compare-and-set bug", () => {
    for (const version of ["2.9.10", "2.9.21", "2.1.0", "1.4.1", "v2.9.25"]) {
      expect(isSupportedNatsVersion(version), version).toBe(false);
      expect(() => assertNatsVersion(version), version).toThrow(NatsVersionError);
    }
    expect(() => assertNatsVersion("2.9.10")).toThrow(/2\.9\.10 is too old.*compare-and-set.*#4320/s);
    expect(() => assertNatsVersion("")).toThrow(NatsVersionError);
  });

  it("accepts 2.10.0 and later", () => {
    for (const version of ["2.10.0", "2.10.27", "v2.10.27", "2.11.0-beta.1", "2.12.3", "3.0.0"]) {
      expect(isSupportedNatsVersion(version), version).toBe(true);
      expect(assertNatsVersion(version).text, version).toBe(version.replace(/^v/, ""));
    }
  });
});

describe("KV prefix → subject filter", () => {
  it("filters on the prefix's complete tokens; `/` does not split a token", () => {
    expect(kvFilterForPrefix("")).toBe(">");
    expect(kvFilterForPrefix("lobby/")).toBe(">");
    expect(kvFilterForPrefix("activity/x.y")).toBe("activity/x.>");
    expect(kvFilterForPrefix("a.b.")).toBe("a.b.>");
  });
});
