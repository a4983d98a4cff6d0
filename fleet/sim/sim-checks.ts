/** An acknowledgement a node gave a client, at virtual time `at`. */
export interface AckRecord {
  readonly at: number;
  readonly key: string;
  readonly op: string;
  readonly epoch: number;
  readonly node: string;
}

/** A snapshot write that landed in the store, in landing order. */
export interface WriteRecord {
  readonly at: number;
  readonly key: string;
  readonly epoch: number;
  readonly revision: number;
}

/** A key's final state in the store, and whether a live process serves it with a fresh lease. */
export interface FinalKey {
  readonly key: string;
  /** The op ids of its last snapshot; null when it has none (never created, or freed as an orphan). */
  readonly ops: readonly string[] | null;
  /** Why nobody serves it, or null when a live node with a fresh lease serves it at its claim's epoch. */
  readonly unserved: string | null;
}

/** Which of FLEET-PROTOCOL's invariants a violation breaks. */
export type Invariant = "one-voice" | "nothing-acked-lost" | "no-key-lost" | "applied-once";

export interface Violation {
  readonly invariant: Invariant;
  readonly message: string;
}

export interface CheckInput {
  readonly acks: readonly AckRecord[];
  readonly writes: readonly WriteRecord[];
  /** Keys whose create the client was told succeeded. */
  readonly created: readonly string[];
  readonly final: readonly FinalKey[];
}

/** FLEET-PROTOCOL's four invariants over one run's record. */
export function checkInvariants(input: CheckInput): Violation[] {
  return [...oneVoice(input), ...nothingAckedLost(input), ...noKeyLost(input), ...appliedOnce(input)];
}

/** (1) No ack at an older epoch after one at a newer epoch; the chain is written by epochs in order. */
function oneVoice({ acks, writes }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  const newestAck = new Map<string, AckRecord>();
  for (const ack of acks) {
    const newest = newestAck.get(ack.key);
    if (newest !== undefined && ack.epoch < newest.epoch) {
      violations.push({
        invariant: "one-voice",
        message: `${ack.key}: ${ack.node} acked ${ack.op} at epoch ${ack.epoch} (t=${ack.at}) after ${newest.node} acked ${newest.op} at epoch ${newest.epoch} (t=${newest.at})`,
      });
    }
    if (newest === undefined || ack.epoch > newest.epoch) newestAck.set(ack.key, ack);
  }
  const newestWrite = new Map<string, WriteRecord>();
  for (const write of writes) {
    const newest = newestWrite.get(write.key);
    if (newest !== undefined && write.epoch < newest.epoch) {
      violations.push({
        invariant: "one-voice",
        message: `${write.key}: epoch ${write.epoch} wrote revision ${write.revision} (t=${write.at}) after epoch ${newest.epoch} wrote revision ${newest.revision}`,
      });
    }
    if (newest === undefined || write.epoch > newest.epoch) newestWrite.set(write.key, write);
  }
  return violations;
}

/** (2) Every acked op is in its key's final snapshot, once, in the order the acks were given. */
function nothingAckedLost({ acks, final }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  const finalOps = new Map(final.map((f) => [f.key, f.ops]));
  const ackOrder = new Map<string, string[]>();
  for (const ack of acks) {
    const order = ackOrder.get(ack.key) ?? [];
    if (!order.includes(ack.op)) order.push(ack.op);
    ackOrder.set(ack.key, order);
  }
  for (const [key, order] of ackOrder) {
    const ops = finalOps.get(key) ?? null;
    if (ops === null) {
      violations.push({
        invariant: "nothing-acked-lost",
        message: `${key}: ${order.length} acked ops, no snapshot`,
      });
      continue;
    }
    const ackedSet = new Set(order);
    const kept = ops.filter((op) => ackedSet.has(op));
    const missing = order.filter((op) => !ops.includes(op));
    if (missing.length > 0) {
      violations.push({
        invariant: "nothing-acked-lost",
        message: `${key}: acked ops lost: ${missing.join(", ")}`,
      });
    } else if (kept.join() !== order.join()) {
      violations.push({
        invariant: "nothing-acked-lost",
        message: `${key}: acked in order ${order.join(",")} but stored as ${kept.join(",")}`,
      });
    }
  }
  return violations;
}

/** (3) After healing, every created key — every key with a snapshot — is served by a live node with a fresh lease. */
function noKeyLost({ created, final }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  const byKey = new Map(final.map((f) => [f.key, f]));
  for (const key of created) {
    if (byKey.get(key)?.ops == null) {
      violations.push({ invariant: "no-key-lost", message: `${key}: created, but no snapshot is left` });
    }
  }
  for (const f of final) {
    if (f.ops !== null && f.unserved !== null) {
      violations.push({
        invariant: "no-key-lost",
        message: `${f.key}: not served after healing: ${f.unserved}`,
      });
    }
  }
  return violations;
}

/** (4) No op id is applied twice: the chain never holds one id twice. */
function appliedOnce({ final }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  for (const f of final) {
    if (f.ops === null) continue;
    const seen = new Set<string>();
    for (const op of f.ops) {
      if (seen.has(op))
        violations.push({ invariant: "applied-once", message: `${f.key}: ${op} applied twice` });
      seen.add(op);
    }
  }
  return violations;
}
