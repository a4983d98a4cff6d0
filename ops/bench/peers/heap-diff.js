// What a process allocated between two heap snapshots and still holds, by what holds it: every object of
// the later snapshot whose id the earlier one does not have is counted (its self size), under
// its own constructor and under its owner — the nearest retainer, walking up through arrays, strings,
// closures' contexts, plain objects and other unnamed parts, that is an instance of a named class (a
// Session, a WebSocket, an actor cell). Divided by `per` (the seated clients added), it is bytes per client.
//
// Usage: node heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [--per N] [--top 40] [--json]
import { readFileSync } from "node:fs";

/** The nodes and edges of one snapshot, with the field offsets its meta names. */
export function loadSnapshot(path) {
  const raw = JSON.parse(readFileSync(path, "utf8"));
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  return {
    nodes: raw.nodes,
    edges: raw.edges,
    strings: raw.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nodeWidth: nf.length,
    edgeWidth: ef.length,
    at: {
      type: nf.indexOf("type"),
      name: nf.indexOf("name"),
      id: nf.indexOf("id"),
      size: nf.indexOf("self_size"),
      edgeCount: nf.indexOf("edge_count"),
      edgeType: ef.indexOf("type"),
      edgeName: ef.indexOf("name_or_index"),
      to: ef.indexOf("to_node"),
    },
  };
}

/** Every node id of a snapshot: a node of the later one whose id is not among them is new. */
function idsOf(s) {
  const ids = new Set();
  for (let i = 0; i < s.nodes.length; i += s.nodeWidth) ids.add(s.nodes[i + s.at.id]);
  return ids;
}

// Names that say nothing of who holds the object: walked through to their retainer.
const generic = new Set([
  "Object",
  "Array",
  "Map",
  "Set",
  "Promise",
  "WeakMap",
  "ArrayBuffer",
  "Uint8Array",
  "Buffer",
  "(object properties)",
]);

function labelOf(s, node) {
  const type = s.nodeTypes[s.nodes[node + s.at.type]];
  const name = s.strings[s.nodes[node + s.at.name]];
  if (type === "object") return name;
  if (type === "closure") return `(closure ${name || "anonymous"})`;
  if (type === "string" || type === "concatenated string" || type === "sliced string") return "(string)";
  if (type === "hidden" || type === "array" || type === "code" || type === "object shape")
    return `(${type}${name.startsWith("system /") ? ` ${name}` : ""})`;
  return `(${type})`;
}

function isOwner(s, node) {
  const type = s.nodeTypes[s.nodes[node + s.at.type]];
  if (type !== "object") return false;
  const name = s.strings[s.nodes[node + s.at.name]];
  return !generic.has(name) && !name.startsWith("system /") && !name.startsWith("(");
}

export function diff(beforePath, afterPath) {
  const old = idsOf(loadSnapshot(beforePath));
  const s = loadSnapshot(afterPath);
  const { nodeWidth: nw, edgeWidth: ew, at } = s;
  const count = s.nodes.length / nw;
  // The first strong retainer of each node (weak edges and the snapshot's synthetic roots do not hold).
  const retainer = new Int32Array(count).fill(-1);
  const weak = s.edgeTypes.indexOf("weak");
  const shortcut = s.edgeTypes.indexOf("shortcut");
  let edge = 0;
  for (let n = 0; n < count; n++) {
    const edges = s.nodes[n * nw + at.edgeCount];
    for (let e = 0; e < edges; e++, edge += ew) {
      const type = s.edges[edge + at.edgeType];
      if (type === weak || type === shortcut) continue;
      const to = s.edges[edge + at.to] / nw;
      // Prefer a retainer that is itself new: an old Map's new backing store is the Map's, not the root's.
      const current = retainer[to];
      const fresh = !old.has(s.nodes[n * nw + at.id]);
      if (current === -1 || (fresh && old.has(s.nodes[current * nw + at.id]))) retainer[to] = n;
    }
  }
  const ownerMemo = new Int32Array(count).fill(-2);
  const ownerOf = (n) => {
    const path = [];
    let cur = n;
    let owner = -1;
    for (let depth = 0; depth < 64; depth++) {
      if (ownerMemo[cur] !== -2) {
        owner = ownerMemo[cur];
        break;
      }
      if (isOwner(s, cur * nw)) {
        owner = cur;
        break;
      }
      path.push(cur);
      const up = retainer[cur];
      if (up === -1) break;
      cur = up;
    }
    for (const p of path) ownerMemo[p] = owner;
    return owner;
  };
  const bySelf = new Map();
  const byOwner = new Map();
  let total = 0;
  let objects = 0;
  for (let n = 0; n < count; n++) {
    const node = n * nw;
    if (old.has(s.nodes[node + at.id])) continue;
    const size = s.nodes[node + at.size];
    total += size;
    objects++;
    const label = labelOf(s, node);
    const self = bySelf.get(label) ?? { count: 0, bytes: 0 };
    self.count++;
    self.bytes += size;
    bySelf.set(label, self);
    const owner = ownerOf(n);
    const ownerLabel = owner === -1 ? "(no named owner)" : labelOf(s, owner * nw);
    const entry = byOwner.get(ownerLabel) ?? { count: 0, bytes: 0, parts: new Map() };
    if (owner === n) entry.count++;
    entry.bytes += size;
    entry.parts.set(label, (entry.parts.get(label) ?? 0) + size);
    byOwner.set(ownerLabel, entry);
  }
  return { total, objects, bySelf, byOwner };
}

function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? fallback : args[i + 1];
  };
  const [beforePath, afterPath] = args.filter(
    (a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"),
  );
  const per = Number(opt("per", 1));
  const top = Number(opt("top", 40));
  const { total, objects, bySelf, byOwner } = diff(beforePath, afterPath);
  const round = (b) => Math.round(b / per);
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
  const owners = sorted(byOwner)
    .slice(0, top)
    .map(([label, e]) => ({
      owner: label,
      perClient: Number((e.count / per).toFixed(2)),
      bytes: round(e.bytes),
      parts: [...e.parts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([l, b]) => `${l} ${round(b)}`)
        .join(", "),
    }));
  const selves = sorted(bySelf)
    .slice(0, top)
    .map(([label, e]) => ({ label, perClient: Number((e.count / per).toFixed(2)), bytes: round(e.bytes) }));
  if (args.includes("--json")) {
    console.log(JSON.stringify({ per, bytes: round(total), objects: objects / per, owners, selves }));
    return;
  }
  console.log(`new and still held: ${round(total)} B, ${(objects / per).toFixed(1)} objects per 1/${per}`);
  console.log("\nby owner (bytes per unit, instances per unit, largest parts):");
  for (const o of owners)
    console.log(`  ${String(o.bytes).padStart(6)}  ${o.owner} ×${o.perClient}  [${o.parts}]`);
  console.log("\nby constructor (bytes per unit, instances per unit):");
  for (const e of selves) console.log(`  ${String(e.bytes).padStart(6)}  ${e.label} ×${e.perClient}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
