import { describe, expect, it } from "vitest";
import type { KvEntry } from "../../fleet/kv.ts";
import { MemoryBucketData } from "../../fleet/memory/index.ts";

/** The in-memory bucket keeps values packed: every byte comes back as it went in, in a value of its own. */

const everyByte = (): Uint8Array => Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 3) % 256);

describe("an in-memory bucket's values", () => {
  it("gives back every byte value exactly, from a view into a larger buffer too, and an empty value", () => {
    const data = new MemoryBucketData("values", 1);
    const all = everyByte();
    const backing = new Uint8Array(600).fill(0xff);
    backing.set(all, 40);
    data.put("k/all", all);
    data.put("k/view", backing.subarray(40, 40 + all.length));
    data.put("k/empty", new Uint8Array(0));
    for (const key of ["k/all", "k/view"]) expect([...(data.get(key)?.value ?? [])]).toEqual([...all]);
    expect(data.get("k/empty")?.value.byteLength).toBe(0);
  });

  it("hands out a plain Uint8Array of its own each time, to each reader and each listener", () => {
    const data = new MemoryBucketData("own", 1);
    const heard: KvEntry[] = [];
    data.listen({ prefix: "k/", notify: (entry) => heard.push(entry) });
    data.listen({ prefix: "k/", notify: (entry) => heard.push(entry) });
    const input = everyByte();
    data.put("k/a", input);
    input.fill(0);
    const first = data.get("k/a")!.value;
    expect(first.constructor).toBe(Uint8Array);
    expect(first.buffer.byteLength).toBe(first.byteLength);
    first.fill(0);
    heard[0]!.value.fill(0);
    expect([...heard[1]!.value]).toEqual([...everyByte()]);
    expect([...data.get("k/a")!.value]).toEqual([...everyByte()]);
    expect([...data.existing("k/", undefined)[0]!.value]).toEqual([...everyByte()]);
  });
});
