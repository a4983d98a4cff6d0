import { describe, expect, it } from "vitest";
import { MemoryBucketData } from "../../fleet/memory/index.ts";

/** The in-memory bucket keeps, per key, exactly its last `history` entries (a delete marker counts). */

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const revisions = (data: MemoryBucketData): number[] => data.existing("k/", 1).map((entry) => entry.revision);

describe("an in-memory bucket's kept history", () => {
  it("keeps the last three of five writes with a history of 3, and the last one with a history of 1", () => {
    const three = new MemoryBucketData("three", 3);
    const one = new MemoryBucketData("one", 1);
    for (const data of [three, one]) for (let i = 1; i <= 5; i++) data.put("k/a", bytes(String(i)));
    expect(revisions(three)).toEqual([3, 4, 5]);
    expect(revisions(one)).toEqual([5]);
    expect(new TextDecoder().decode(one.get("k/a")?.value)).toBe("5");
  });

  it("counts a delete marker as an entry, and keeps each key's history apart", () => {
    const data = new MemoryBucketData("two", 2);
    data.put("k/a", bytes("1"));
    data.put("k/b", bytes("x"));
    data.put("k/a", bytes("2"));
    data.delete("k/a", undefined);
    expect(data.existing("k/", 1).map((e) => `${e.key}@${e.revision} ${e.operation}`)).toEqual([
      "k/b@2 PUT",
      "k/a@3 PUT",
      "k/a@4 DEL",
    ]);
    expect(data.get("k/a")).toBeUndefined();
    expect(data.keys("k/")).toEqual(["k/b"]);
  });
});
