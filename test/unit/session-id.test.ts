import { describe, expect, it } from "vitest";
import { freshSessionId } from "../../gateway/sessions/index.ts";

describe("session ids", () => {
  it("are 16 base64url characters, and never repeat across refills of their pool", () => {
    // Several fills of the pool (256 ids each), so ids on both sides of a refill are compared.
    const ids = Array.from({ length: 2_000 }, () => freshSessionId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("carry 12 bytes of randomness each: no byte position is the same in every id", () => {
    const bytes = Array.from({ length: 64 }, () => Buffer.from(freshSessionId(), "base64url"));
    for (const b of bytes) expect(b).toHaveLength(12);
    for (let i = 0; i < 12; i++) expect(new Set(bytes.map((b) => b[i])).size).toBeGreaterThan(1);
  });
});
