import { signPlayerToken, type TokenKey } from "../../gateway/auth/player-token.ts";
import { FoyerClient, isFoyerError } from "../../gateway/client/index.ts";
import { expectationOf } from "./ack-replay.ts";
import type { ChaosBot } from "./chaos-bot.ts";
import type { FinalView, OpRecord } from "./chaos-journal.ts";
import { listeningSocket } from "./listening-socket.ts";
import { lobbiesExpected, opsByBot, servedLobbies, type ProbeResult } from "./state-audit.ts";

/**
 * Waits (up to `timeoutMs`) until the healed cluster has settled as the bots see it: every bot connected,
 * every bot whose acknowledgements put it in a lobby seeing that lobby, and the members of each lobby
 * holding the same state (epoch and sequence). Returns the bots' views then, settled or not: an unsettled
 * run is what the audit is for.
 */
export async function settle(
  bots: readonly ChaosBot[],
  ops: readonly OpRecord[],
  timeoutMs: number,
): Promise<FinalView[]> {
  const byBot = opsByBot(ops);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const views = bots.map((b) => b.view());
    if (settled(views, byBot) || Date.now() >= deadline) return views;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function settled(views: readonly FinalView[], byBot: ReadonlyMap<string, OpRecord[]>): boolean {
  const states = new Map<string, string>();
  for (const view of views) {
    if (!view.connected) return false;
    const e = expectationOf(byBot.get(view.bot) ?? []);
    if (e.kind === "in" && view.lobby?.code !== e.code) return false;
    if (!view.lobby) continue;
    const stamp = `${view.lobby.epoch}/${view.lobby.seq}`;
    if ((states.get(view.lobby.code) ?? stamp) !== stamp) return false;
    states.set(view.lobby.code, stamp);
  }
  return true;
}

/**
 * For each lobby the acknowledgements say must exist but no bot sees: a fresh player joins it by code
 * (then leaves). Joined, or refused FULL, means it is served; NOT_FOUND or no answer means it is gone.
 */
export async function probeUnseen(
  views: readonly FinalView[],
  ops: readonly OpRecord[],
  urls: readonly string[],
  tokenKey: TokenKey,
  callTimeoutMs: number,
): Promise<Map<string, ProbeResult>> {
  const byBot = opsByBot(ops);
  const expected = lobbiesExpected(new Map(views.map((v) => [v.bot, expectationOf(byBot.get(v.bot) ?? [])])));
  const seen = servedLobbies(views);
  const unseen = [...expected.keys()].filter((code) => !seen.has(code));
  const probes = new Map<string, ProbeResult>();
  if (unseen.length === 0) return probes;
  const probe = new FoyerClient({
    urls,
    token: () =>
      signPlayerToken(
        { sub: "chaos-probe", name: "probe", exp: Math.floor(Date.now() / 1000) + 3600 },
        tokenKey,
      ),
    callTimeoutMs,
    WebSocket: listeningSocket("chaos-probe", () => undefined),
  });
  try {
    await probe.connect();
    for (const code of unseen) {
      try {
        await probe.join(code);
        probes.set(code, "served");
        await probe.leave();
      } catch (error) {
        probes.set(code, isFoyerError(error, "FULL") ? "served" : "gone");
      }
    }
  } catch {
    for (const code of unseen) if (!probes.has(code)) probes.set(code, "gone");
  } finally {
    probe.close();
  }
  return probes;
}
