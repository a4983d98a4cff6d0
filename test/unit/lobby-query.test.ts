import { describe, expect, it } from "vitest";
import {
  ListingIndex,
  QueryError,
  SortedList,
  checkQuery,
  filtersTest,
  lineComparator,
  parseIndexedKeys,
  type ListedLobby,
  type Query,
  type QueryInput,
} from "../../fleet/listings/index.ts";
import { seededRandom } from "../../actors/runtime/index.ts";

const indexed = parseIndexedKeys("region:string,level:number,ranked:boolean");

function line(code: string, fields: Partial<ListedLobby> = {}): ListedLobby {
  return {
    code,
    mode: "duo",
    map: null,
    freeSeats: 3,
    members: 1,
    playing: false,
    data: {},
    locked: false,
    hasPassword: false,
    maxMembers: 4,
    createdAt: 0,
    ...fields,
  };
}

function indexOf(lines: readonly ListedLobby[]): ListingIndex {
  const index = new ListingIndex(indexed);
  for (const l of lines) index.upsert(l);
  return index;
}

function codes(index: ListingIndex, input: QueryInput): string[] {
  return index.query(checkQuery(input, indexed)).lobbies.map((l) => l.code);
}

/** The answer without any index: every line tested, sorted, sliced. */
function naive(lines: readonly ListedLobby[], query: Query): string[] {
  return lines
    .filter(filtersTest(query.filters))
    .sort(lineComparator(query.order))
    .map((l) => l.code);
}

/** Every page of a query, following its cursors. */
function allPages(index: ListingIndex, input: QueryInput): string[] {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const answer = index.query(checkQuery({ ...input, ...(cursor ? { cursor } : {}) }, indexed));
    seen.push(...answer.lobbies.map((l) => l.code));
    if (answer.cursor === null) return seen;
    cursor = answer.cursor;
  }
  throw new Error("the cursor never ended");
}

function refusal(input: QueryInput): string {
  try {
    checkQuery(input, indexed);
  } catch (error) {
    expect(error).toBeInstanceOf(QueryError);
    return (error as Error).message;
  }
  throw new Error("the query was accepted");
}

describe("lobby queries (pure)", () => {
  const lines = [
    line("AAAA", { data: { region: "eu", level: 5 }, freeSeats: 1, createdAt: 30 }),
    line("BBBB", { data: { region: "us", level: 9 }, freeSeats: 0, createdAt: 10 }),
    line("CCCC", { data: { region: "eu", level: 2 }, mode: "ffa", createdAt: 20 }),
    line("DDDD", { data: { region: "Europe-west" }, locked: true, createdAt: 40 }),
    line("EEEE", { data: { level: "high" }, hasPassword: true, createdAt: 50 }),
  ];
  const index = indexOf(lines);

  it("filters with each operator, ANDed; a line lacking the field matches only ne", () => {
    expect(codes(index, { filters: [{ field: "data.region", op: "eq", value: "eu" }] })).toEqual([
      "AAAA",
      "CCCC",
    ]);
    expect(codes(index, { filters: [{ field: "data.region", op: "ne", value: "eu" }] })).toEqual([
      "BBBB",
      "DDDD",
      "EEEE",
    ]);
    expect(codes(index, { filters: [{ field: "data.level", op: "lt", value: 5 }] })).toEqual(["CCCC"]);
    expect(codes(index, { filters: [{ field: "data.level", op: "le", value: 5 }] })).toEqual([
      "AAAA",
      "CCCC",
    ]);
    expect(codes(index, { filters: [{ field: "data.level", op: "gt", value: 5 }] })).toEqual(["BBBB"]);
    expect(codes(index, { filters: [{ field: "data.level", op: "ge", value: 5 }] })).toEqual([
      "AAAA",
      "BBBB",
    ]);
    expect(codes(index, { filters: [{ field: "data.region", op: "in", value: ["us", "x"] }] })).toEqual([
      "BBBB",
    ]);
    expect(codes(index, { filters: [{ field: "data.region", op: "contains", value: "EU" }] })).toEqual([
      "AAAA",
      "CCCC",
      "DDDD",
    ]);
    expect(
      codes(index, {
        filters: [
          { field: "freeSeats", op: "gt", value: 0 },
          { field: "locked", op: "eq", value: false },
          { field: "hasPassword", op: "eq", value: false },
          { field: "mode", op: "eq", value: "duo" },
        ],
      }),
    ).toEqual(["AAAA"]);
  });

  it("orders by one field either way, lines lacking it last, ties by code", () => {
    expect(codes(index, { order: { field: "createdAt", dir: "desc" } })).toEqual([
      "EEEE",
      "DDDD",
      "AAAA",
      "CCCC",
      "BBBB",
    ]);
    expect(codes(index, { order: { field: "data.level", dir: "desc" } })).toEqual([
      "BBBB",
      "AAAA",
      "CCCC",
      "DDDD",
      "EEEE",
    ]);
    expect(codes(index, { order: { field: "data.level" } })).toEqual([
      "CCCC",
      "AAAA",
      "BBBB",
      "DDDD",
      "EEEE",
    ]);
    expect(codes(index, { order: { field: "freeSeats" }, limit: 3 })).toEqual(["BBBB", "AAAA", "CCCC"]);
  });

  it("pages with a cursor that stays stable while lines change", () => {
    const idx = indexOf(lines);
    const first = idx.query(checkQuery({ order: { field: "createdAt" }, limit: 2 }, indexed));
    expect(first.lobbies.map((l) => l.code)).toEqual(["BBBB", "CCCC"]);
    expect(first.cursor).not.toBeNull();
    // A line before the cursor changes and one is added before it: the next page neither repeats nor skips.
    idx.upsert(line("BBBB", { createdAt: 11 }));
    idx.upsert(line("ZZZZ", { createdAt: 5 }));
    idx.remove("AAAA");
    const next = idx.query(
      checkQuery({ order: { field: "createdAt" }, limit: 2, cursor: first.cursor! }, indexed),
    );
    expect(next.lobbies.map((l) => l.code)).toEqual(["DDDD", "EEEE"]);
    expect(next.cursor).toBeNull();
  });

  it("refuses unknown operators, wrong value types, fields not indexed and foreign cursors", () => {
    expect(refusal({ filters: [{ field: "members", op: "like", value: 1 }] })).toContain(
      "unknown operator like",
    );
    expect(refusal({ filters: [{ field: "members", op: "eq", value: "1" }] })).toContain("needs a number");
    expect(refusal({ filters: [{ field: "data.colour", op: "eq", value: "red" }] })).toContain("not indexed");
    expect(refusal({ filters: [{ field: "colour", op: "eq", value: "red" }] })).toContain("unknown field");
    expect(refusal({ filters: [{ field: "members", op: "contains", value: "1" }] })).toContain(
      "string field",
    );
    expect(refusal({ filters: [{ field: "locked", op: "lt", value: true }] })).toContain("no order");
    expect(refusal({ filters: [{ field: "members", op: "in", value: [] }] })).toContain("non-empty list");
    expect(refusal({ filters: [{ field: "members", op: "eq", value: [1] }] })).toContain("one value");
    expect(refusal({ order: { field: "data.colour" } })).toContain("not indexed");
    const cursor = indexOf(lines).query(
      checkQuery({ order: { field: "createdAt" }, limit: 1 }, indexed),
    ).cursor!;
    expect(refusal({ order: { field: "members" }, cursor })).toContain("another order");
    expect(refusal({ cursor: "not-a-cursor" })).toContain("not one a query gave");
    expect(() => parseIndexedKeys("region:text")).toThrow(/region:text/);
  });

  it("answers as a scan of every line would, page after page, on random lines and queries, before and after changes", () => {
    const seeded = seededRandom(7);
    const random = { next: () => seeded.int(1_000_000) / 1_000_000 };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random.next() * xs.length)]!;
    const randomLine = (code: string): ListedLobby => {
      const data: Record<string, string | number | boolean> = {};
      if (random.next() < 0.8) data.region = pick(["eu", "us", "asia", "sa"]);
      if (random.next() < 0.8) data.level = Math.floor(random.next() * 20);
      if (random.next() < 0.5) data.ranked = random.next() < 0.5;
      return line(code, {
        data,
        mode: random.next() < 0.1 ? null : pick(["duo", "ffa", "ctf"]),
        freeSeats: Math.floor(random.next() * 5),
        members: Math.floor(random.next() * 5),
        locked: random.next() < 0.2,
        createdAt: Math.floor(random.next() * 500),
      });
    };
    const many = new Map<string, ListedLobby>();
    for (let i = 0; i < 3000; i++) {
      const code = `L${String(i).padStart(5, "0")}`;
      many.set(code, randomLine(code));
    }
    const idx = indexOf([...many.values()]);
    const filterPool: QueryInput["filters"] = [
      { field: "data.region", op: "eq", value: "eu" },
      { field: "data.region", op: "in", value: ["us", "sa"] },
      { field: "data.region", op: "in", value: ["asia"] },
      { field: "data.level", op: "ge", value: 10 },
      { field: "data.level", op: "lt", value: 4 },
      { field: "data.ranked", op: "eq", value: true },
      { field: "freeSeats", op: "gt", value: 0 },
      { field: "locked", op: "eq", value: false },
      { field: "mode", op: "ne", value: "ffa" },
      { field: "mode", op: "eq", value: "duo" },
      { field: "createdAt", op: "le", value: 250 },
      { field: "members", op: "eq", value: 2 },
    ];
    const orders = ["code", "createdAt", "data.level", "data.region", "freeSeats", "mode"];
    const inputs: QueryInput[] = [];
    for (let round = 0; round < 80; round++) {
      inputs.push({
        filters: filterPool.filter(() => random.next() < 0.3),
        order: { field: pick(orders), dir: pick(["asc", "desc"] as const) },
        limit: pick([3, 7, 50, 100]),
      });
    }
    const compareAll = (): void => {
      for (const input of inputs) {
        const expected = naive([...many.values()], checkQuery(input, indexed));
        expect(allPages(idx, input), JSON.stringify(input)).toEqual(expected);
      }
    };
    compareAll();
    // Queries with equality filters walked narrowed orders; they are kept, at most 16 of them.
    expect(idx.narrowedCount).toBeGreaterThan(0);
    expect(idx.narrowedCount).toBeLessThanOrEqual(16);
    // Lines change, go and come while the narrowed orders exist: their answers follow.
    for (let i = 0; i < 1500; i++) {
      const code = `L${String(Math.floor(random.next() * 3600)).padStart(5, "0")}`;
      if (random.next() < 0.25) {
        many.delete(code);
        idx.remove(code);
      } else {
        const changed = randomLine(code);
        many.set(code, changed);
        idx.upsert(changed);
      }
    }
    compareAll();
  });

  it("a query with equality filters visits a page's worth of lines, however its matches cluster in the order", () => {
    // As in the bench's spread data: no `ctf` lobby has a level above 10, so a walk of the whole level
    // order from the top passes every lobby of levels 50 to 11 before it finds one.
    const clustered: ListedLobby[] = [];
    for (let i = 0; i < 5000; i++) {
      const level = 1 + (i % 50);
      const mode = level <= 10 && i % 2 === 0 ? "ctf" : "duo";
      clustered.push(line(`C${String(i).padStart(5, "0")}`, { mode, data: { region: "eu", level } }));
    }
    const idx = indexOf(clustered);
    const input: QueryInput = {
      filters: [
        { field: "mode", op: "eq", value: "ctf" },
        { field: "data.region", op: "eq", value: "eu" },
      ],
      order: { field: "data.level", dir: "desc" },
      limit: 20,
    };
    const page = idx.query(checkQuery(input, indexed));
    expect(page.lobbies.map((l) => l.code)).toEqual(
      naive(clustered, checkQuery(input, indexed)).slice(0, 20),
    );
    expect(page.visited).toBeLessThanOrEqual(21);
    const next = idx.query(checkQuery({ ...input, cursor: page.cursor! }, indexed));
    expect(next.visited).toBeLessThanOrEqual(21);
  });
});

describe("sorted list", () => {
  it("keeps entries in order across chunk splits and removals, and walks from any key either way", () => {
    const list = new SortedList();
    const entry = (n: number) => ({ value: n % 97, code: `C${String(n).padStart(5, "0")}`, line: line("X") });
    for (let n = 0; n < 3000; n++) list.insert(entry((n * 7919) % 3000));
    for (let n = 0; n < 3000; n += 3) expect(list.remove(n % 97, entry(n).code)).toBe(true);
    expect(list.remove(1, "NOPE")).toBe(false);
    expect(list.size).toBe(2000);
    const walked: string[] = [];
    list.walk(null, false, (e) => walked.push(`${String(e.value).padStart(3, "0")}${e.code}`) > 0);
    expect(walked).toEqual([...walked].sort());
    const backwards: string[] = [];
    list.walk({ value: 50, code: "C" }, true, (e) => backwards.push(`${e.value}`) < 5);
    expect(backwards.every((v) => Number(v) < 50)).toBe(true);
    expect(backwards).toHaveLength(5);
  });
});
