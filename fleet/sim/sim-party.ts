import type { LobbyInit } from "../../actors/lobby/index.ts";
import type { Violation } from "./sim-checks.ts";

/**
 * The real private lobby (actors/lobby, the kind `foyer node` registers) in the simulation: a party's
 * client creates `lobby/<CODE>` with its host, then sends a fixed script of lobby messages one at a time,
 * each retried until acknowledged. Every step is idempotent in the lobby (a second join, leave, ready
 * or rename changes nothing and is answered ok), so a retry of an applied step is harmless; the final
 * check reads the lobby's snapshot from the store and wants exactly what the acknowledged steps made.
 */

/** A member as the check compares it: who, under what name, ready or not, in join order. */
export interface PartyMember {
  readonly player: string;
  readonly name: string;
  readonly ready: boolean;
}

/** A party lobby's key, its creation argument and its script. */
export interface PartyPlan {
  readonly key: string;
  readonly init: LobbyInit;
  /** Every player the script names: their sessions follow the lobby (sim-process.ts, `playersHere`). */
  readonly players: readonly string[];
  readonly steps: readonly object[];
}

/**
 * The plan of party `n`: made with host H and member A, joined by B; A readies, B renames, A leaves, the
 * host readies. No step undoes another's change, because a client's retry is a copy of its message with
 * no id, and a copy held by a paused node can land after later steps: a late `join` of A after its
 * `leave` would put A back (so A comes in with the create, which a late copy cannot repeat), a late
 * `ready` of A after it left is refused and changes nothing.
 */
export function partyPlan(n: number): PartyPlan {
  const code = `R${n}`;
  const [host, a, b] = ["H", "A", "B"].map((who) => `${code}${who}`) as [string, string, string];
  return {
    key: `lobby/${code}`,
    init: { code, host: { id: host, name: host }, members: [{ id: a, name: a }] },
    players: [host, a, b],
    steps: [
      { type: "join", player: { id: b, name: b } },
      { type: "ready", player: a, ready: true },
      { type: "profile", player: b, name: `${b} renamed` },
      { type: "leave", player: a },
      { type: "ready", player: host, ready: true },
    ],
  };
}

/** The members after the create and the first `steps` steps of `plan`, as the lobby applies them. */
export function membersAfter(plan: PartyPlan, steps: number): PartyMember[] {
  let members: PartyMember[] = [plan.init.host, ...(plan.init.members ?? [])].map((p) => ({
    player: p.id,
    name: p.name,
    ready: false,
  }));
  for (const step of plan.steps.slice(0, steps) as ScriptStep[]) {
    if (step.type === "join")
      members = [...members, { player: step.player.id, name: step.player.name, ready: false }];
    else if (step.type === "leave") members = members.filter((m) => m.player !== step.player);
    else members = members.map((m) => (m.player === step.player ? changed(m, step) : m));
  }
  return members;
}

type ScriptStep =
  | { type: "join"; player: { id: string; name: string } }
  | { type: "leave"; player: string }
  | { type: "ready"; player: string; ready: boolean }
  | { type: "profile"; player: string; name: string };

function changed(member: PartyMember, step: ScriptStep): PartyMember {
  if (step.type === "ready") return { ...member, ready: step.ready };
  if (step.type === "profile") return { ...member, name: step.name };
  return member;
}

/** How far a party's client got: its create acknowledged, its steps acknowledged, one step in flight. */
export interface PartyRecord {
  readonly plan: PartyPlan;
  /** Steps acknowledged, in script order. */
  acked: number;
  /** True while step `acked` was sent and not yet acknowledged: it may or may not have been applied. */
  inFlight: boolean;
}

/** A party lobby's final reading: its snapshot's state (null: none) and why nobody serves it. */
export interface FinalParty {
  readonly key: string;
  readonly state: unknown;
  readonly unserved: string | null;
}

/**
 * (6) Every acknowledged lobby change survives: a created party lobby has a snapshot, is served, and its
 * members are those of its acknowledged steps (or one more, the step still in flight).
 */
export function partiesKept(parties: readonly PartyRecord[], final: readonly FinalParty[]): Violation[] {
  const byKey = new Map(final.map((f) => [f.key, f]));
  return parties.flatMap((party): Violation[] => {
    const { key } = party.plan;
    const read = byKey.get(key);
    if (read === undefined || read.state === null)
      return [{ invariant: "lobby-kept", message: `${key}: created, but no snapshot is left` }];
    if (read.unserved !== null)
      return [{ invariant: "lobby-kept", message: `${key}: not served after healing: ${read.unserved}` }];
    const stored = JSON.stringify(membersOf(read.state));
    const allowed = [party.acked, ...(party.inFlight ? [party.acked + 1] : [])].map((n) =>
      JSON.stringify(membersAfter(party.plan, n)),
    );
    if (allowed.includes(stored)) return [];
    return [
      {
        invariant: "lobby-kept",
        message: `${key}: ${party.acked} step(s) acknowledged, want ${allowed.join(" or ")}, stored ${stored}`,
      },
    ];
  });
}

function membersOf(state: unknown): PartyMember[] {
  const members = (state as { members?: unknown }).members;
  if (!Array.isArray(members)) return [];
  return members.map((m: PartyMember) => ({ player: m.player, name: m.name, ready: m.ready }));
}
