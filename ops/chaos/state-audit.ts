import { expectationOf, expectedHost, type Expectation } from "./ack-replay.ts";
import type { FinalView, LobbyFacts, OpRecord } from "./chaos-journal.ts";

/** What a fresh client found when it asked for a lobby no bot was watching. */
export type ProbeResult = "served" | "gone";

/** The findings about the final state, each a sentence naming the bot, lobby and request. */
export interface StateFindings {
  readonly lostAcks: string[];
  readonly lostLobbies: string[];
  readonly strandedClients: string[];
  /** SPEC §1 in the final state: members in join order, the host one of them. */
  readonly orderViolations: string[];
}

/**
 * Per bot, its ops in send order; a kick (a ban) another bot sent of it is copied into its list as a
 * `kicked` op, so its replay knows it cannot be in that lobby.
 */
export function opsByBot(ops: readonly OpRecord[]): Map<string, OpRecord[]> {
  const byBot = new Map<string, OpRecord[]>();
  const add = (bot: string, op: OpRecord): void => {
    const list = byBot.get(bot) ?? [];
    list.push(op);
    byBot.set(bot, list);
  };
  for (const op of [...ops].sort((a, b) => a.id - b.id)) {
    add(op.bot, op);
    if (op.kind === "kick" && typeof op.arg === "string") add(op.arg, { ...op, kind: "kicked", bot: op.arg });
  }
  return byBot;
}

/** The lobbies the bots' acknowledgements say must still exist, with who must be in them. */
export function lobbiesExpected(expectations: ReadonlyMap<string, Expectation>): Map<string, string[]> {
  const lobbies = new Map<string, string[]>();
  for (const [bot, e] of expectations) {
    if (e.kind !== "in") continue;
    lobbies.set(e.code, [...(lobbies.get(e.code) ?? []), bot]);
  }
  return lobbies;
}

/** Of each lobby, the freshest state any bot holds (highest epoch, then sequence). */
export function servedLobbies(
  views: readonly FinalView[],
): Map<string, LobbyFacts & { epoch: number; seq: number }> {
  const served = new Map<string, LobbyFacts & { epoch: number; seq: number }>();
  for (const view of views) {
    const lobby = view.lobby;
    if (!lobby) continue;
    const known = served.get(lobby.code);
    if (!known || lobby.epoch > known.epoch || (lobby.epoch === known.epoch && lobby.seq > known.seq)) {
      served.set(lobby.code, lobby);
    }
  }
  return served;
}

const opName = (op: OpRecord | null): string => (op ? `#${op.id} ${op.kind}` : "its start");

/**
 * Checks the final state against the acknowledged requests: each bot's last acknowledged create, join,
 * ready and leave (and each lobby's host after acknowledged `makeHost`s) must be what the lobby's owner
 * serves; every lobby a bot must still be in is served (seen by a member, or found by a fresh client's
 * probe); every bot is connected and, when it must be in a lobby, sees it.
 */
export function auditFinalState(
  ops: readonly OpRecord[],
  views: readonly FinalView[],
  probes: ReadonlyMap<string, ProbeResult>,
): StateFindings {
  const byBot = opsByBot(ops);
  const expectations = new Map<string, Expectation>();
  for (const view of views) expectations.set(view.bot, expectationOf(byBot.get(view.bot) ?? []));
  const served = servedLobbies(views);
  const findings: StateFindings = { lostAcks: [], lostLobbies: [], strandedClients: [], orderViolations: [] };

  for (const [code, bots] of lobbiesExpected(expectations)) {
    if (!served.has(code) && probes.get(code) !== "served") {
      findings.lostLobbies.push(`lobby ${code} (members ${bots.join(", ")}) is not served`);
    }
  }
  for (const view of views) {
    const e = expectations.get(view.bot);
    if (!e) continue;
    if (!view.closed && !view.connected) findings.strandedClients.push(`${view.bot} is not connected`);
    else if (e.kind === "in" && view.lobby?.code !== e.code) {
      findings.strandedClients.push(
        `${view.bot} must be in ${e.code} (${opName(e.by)}) but sees ${view.lobby?.code ?? "none"}`,
      );
    }
    const seen = view.lobby && served.get(view.lobby.code);
    if (seen && !seen.members.some((m) => m.player === view.bot)) {
      // The owner took it out while it was away, and nothing told the client: it waits in a lobby it is not in.
      findings.strandedClients.push(
        `${view.bot} sees itself in ${seen.code}, whose owner does not list it (epoch ${seen.epoch}, seq ${seen.seq})`,
      );
    }
    if (e.kind === "in") {
      const lobby = served.get(e.code);
      const member = lobby?.members.find((m) => m.player === view.bot);
      if (lobby && !member)
        findings.lostAcks.push(`${view.bot}: ${opName(e.by)} of ${e.code} acked, not a member of it`);
      if (member && e.ready !== null && member.ready !== e.ready) {
        findings.lostAcks.push(`${view.bot}: ready ${e.ready} acked in ${e.code}, served ${member.ready}`);
      }
    } else if (e.kind === "out") {
      for (const [code, lobby] of served) {
        if (lobby.members.some((m) => m.player === view.bot)) {
          findings.lostAcks.push(`${view.bot}: ${opName(e.by)} acked, still a member of ${code}`);
        }
      }
    }
  }
  for (const [code, lobby] of served) {
    const host = expectedHost(code, ops);
    if (host.host !== null && lobby.host !== host.host) {
      findings.lostAcks.push(
        `${code}: host ${host.host} after ${opName(host.by)}, served ${lobby.host ?? "none"}`,
      );
    }
    findings.orderViolations.push(...orderProblems(code, lobby, expectations));
  }
  return findings;
}

/** SPEC §1: the host is a member (none only when empty); members whose joins did not overlap are in join order. */
function orderProblems(
  code: string,
  lobby: LobbyFacts,
  expectations: ReadonlyMap<string, Expectation>,
): string[] {
  const problems: string[] = [];
  const players = lobby.members.map((m) => m.player);
  if (players.length > 0 && (lobby.host === null || !players.includes(lobby.host))) {
    problems.push(`${code}: host ${lobby.host ?? "none"} is not a member of ${players.join(",")}`);
  }
  const joined = players.map((p) => {
    const e = expectations.get(p);
    return e?.kind === "in" && e.code === code ? e.by : null;
  });
  for (let i = 0; i < joined.length; i += 1) {
    for (let j = i + 1; j < joined.length; j += 1) {
      const earlier = joined[i];
      const later = joined[j];
      // j is listed after i, yet i's join was sent only after j's was acknowledged.
      if (earlier && later && later.endedAt < earlier.sentAt) {
        problems.push(`${code}: ${players[j] ?? ""} joined before ${players[i] ?? ""} but is listed after`);
      }
    }
  }
  return problems;
}
