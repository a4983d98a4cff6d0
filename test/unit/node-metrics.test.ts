import { describe, expect, it } from "vitest";
import { NodeMetrics } from "../../ops/admin/index.ts";

/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function exposition(metrics: NodeMetrics): Promise<string> {
  return (await metrics.exposition()).text;
}

function metrics(depths = new Map<string, number>()): NodeMetrics {
  return new NodeMetrics({ sessions: () => 0, members: () => 0, queueDepths: () => depths });
}

describe("NodeMetrics", () => {
  it("times a failover's recovery for lobbies whose owner's death this node saw, and counts every takeover", async () => {
    const m = metrics();
    m.tookOver("lobby/AB12CD", 3.2);
    m.tookOver("activityLobby/party/1", 0.004);
    m.tookOver("player/alice", 3.1); // not a lobby: counted, not timed
    m.tookOver("lobby/ZZ99ZZ"); // its owner's death not seen here: counted, not timed
    const text = await exposition(m);
    expect(sample(text, "foyer_failovers_total")).toBe(4);
    expect(sample(text, "foyer_failover_recovery_seconds_count")).toBe(2);
    expect(sample(text, "foyer_failover_recovery_seconds_sum")).toBeCloseTo(3.204, 6);
    expect(sample(text, 'foyer_failover_recovery_seconds_bucket{le="0.01"}')).toBe(1);
    expect(sample(text, 'foyer_failover_recovery_seconds_bucket{le="5"}')).toBe(2);
  });

  it("times each migration's frozen mailbox by the kind of its key", async () => {
    const m = metrics();
    m.migrationPaused("lobby/AB12CD", 0.02);
    m.migrationPaused("lobby/CD34EF", 0.3);
    m.migrationPaused("player/alice", 0.005);
    const text = await exposition(m);
    expect(sample(text, 'foyer_migration_pause_seconds_count{kind="lobby"}')).toBe(2);
    expect(sample(text, 'foyer_migration_pause_seconds_bucket{le="0.025",kind="lobby"}')).toBe(1);
    expect(sample(text, 'foyer_migration_pause_seconds_count{kind="player"}')).toBe(1);
  });

  it("reads each queue's depth at the scrape, by lobby type", async () => {
    const depths = new Map([
      ["chess", 3],
      ["party", 0],
    ]);
    const m = metrics(depths);
    expect(sample(await exposition(m), 'foyer_queue_depth{lobby_type="chess"}')).toBe(3);
    depths.set("chess", 1);
    const text = await exposition(m);
    expect(sample(text, 'foyer_queue_depth{lobby_type="chess"}')).toBe(1);
    expect(sample(text, 'foyer_queue_depth{lobby_type="party"}')).toBe(0);
  });
});
