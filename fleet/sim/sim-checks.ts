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
  /**
   * Why nobody serves it, or null when the live process its claim names, with a fresh lease, answered a
   * request for it (sim-final.ts: being in memory is not asked, being answered is).
   */
  readonly unserved: string | null;
}

/** Which of FLEET-PROTOCOL's invariants a violation breaks. */
export type Invariant =
  "one-voice" | "nothing-acked-lost" | "no-key-lost" | "applied-once" | "one-lobby" | "lobby-kept";

/** A player that moved from lobby `from` to `to`: the registry acknowledged its move intent. */
export interface MoveRecord {
  readonly player: string;
  readonly registry: string;
  readonly from: string;
  readonly to: string;
}

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
  /** Moves whose intent the registry acknowledged (none when omitted). */
  readonly moves?: readonly MoveRecord[];
}

/** FLEET-PROTOCOL's four invariants over one run's record, and the registry's one lobby per player. */
export function checkInvariants(input: CheckInput): Violation[] {
  return [
    ...oneVoice(input),
    ...nothingAckedLost(input),
    ...noKeyLost(input),
    ...appliedOnce(input),
    ...oneLobby(input),
  ];
}

/**
 * (5) A player whose move the registry acknowledged is, once settled, a member of exactly one of the two
 * lobbies (`join:<player>` in its chain and no `leave:<player>`), and its registry's intent is done.
 */
function oneLobby({ moves, final }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  const ops = new Map(final.map((f) => [f.key, f.ops ?? []]));
  for (const move of moves ?? []) {
    const memberOf = [move.from, move.to].filter((key) => {
      const chain = ops.get(key) ?? [];
      return chain.includes(`join:${move.player}`) && !chain.includes(`leave:${move.player}`);
    });
    const registry = ops.get(move.registry) ?? [];
    const done = registry.includes(`left:${move.from}`);
    if (memberOf.length !== 1 || !done) {
      violations.push({
        invariant: "one-lobby",
        message: `${move.player} moved ${move.from} → ${move.to}: member of [${memberOf.join(", ")}], intent ${done ? "done" : "still pending"}`,
      });
    }
  }
  return violations;
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

/** (2) Every acked op is in its key's final snapshot, once, in the order each sender's acks were given. */
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
    } else {
      // Order is checked per sender: ops from two senders (a lobby's client and a moving player) are
      // acknowledged in the order they were applied only when each is acked at its first application —
      // an op applied, refused (lease) and acked on its retry is acked after ops applied later.
      for (const stream of new Set(order.map(senderOf))) {
        const acked = order.filter((op) => senderOf(op) === stream);
        const stored = kept.filter((op) => senderOf(op) === stream);
        if (stored.join() !== acked.join()) {
          violations.push({
            invariant: "nothing-acked-lost",
            message: `${key}: acked in order ${acked.join(",")} but stored as ${stored.join(",")}`,
          });
        }
      }
    }
  }
  return violations;
}

/**
 * Who sent an op: a lobby's client numbers its ops (`K1-7`), a moving player joins and (through its
 * registry) leaves (`join:P1`, `leave:P1`: one after the other), a registry records its intent and its end.
 */
function senderOf(op: string): string {
  const counted = /^(.*)-\d+$/.exec(op);
  if (counted !== null) return counted[1] ?? op;
  const member = /^(?:join|leave):(.*)$/.exec(op);
  if (member !== null) return `player ${member[1] ?? ""}`;
  return op.startsWith("move:") ? "mover" : "registry";
}

/** (3) After healing, every created key has a snapshot, and every key with a snapshot is served (FinalKey.unserved). */
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
