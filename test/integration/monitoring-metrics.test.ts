import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import {
  alertRulesOf,
  alertsFile,
  dashboardQueriesOf,
  readDashboard,
  withVariablesReplaced,
} from "../support/monitoring-files.ts";
import { refusal, useTestNode } from "../support/node.ts";
import { promqlNames } from "../support/promql-names.ts";
import { promtool, promtoolPath, skipPromtool } from "../support/promtool.ts";

const { setup, player } = useTestNode();

/**
 * What `promtool check metrics` reports on every scrape and no Foyer code names: prom-client's own default
 * gauges `nodejs_active_{handles,requests,resources}_total` (the per-type gauges without `_total` carry the
 * same counts). Only these exact lines are let through; any other problem fails the test.
 */
const promClientLint = ["handles", "requests", "resources"].map(
  (what) => `nodejs_active_${what}_total non-counter metrics should not have "_total" suffix`,
);

/** Series Prometheus makes itself, not a node: the node-down alert reads `up`. */
const prometheusOwn = new Set(["up"]);

/** Labels Prometheus adds to every scraped series (the scrape job's), and a histogram bucket's `le`. */
const scrapeLabels = ["job", "instance"];

/** The admin `/metrics` text after a create, a join and a refused join over real sockets. */
async function scrapeAfterTraffic(node: RunningNode): Promise<string> {
  const alice = await player("alice");
  const { code } = await alice.create();
  const bob = await player("bob");
  await bob.join(code);
  const carol = await player("carol");
  expect(await refusal(carol.join("ZZZZZZ"))).toBe("NOT_FOUND");
  const response = await fetch(new URL("/metrics", node.adminUrl));
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).toContain('foyer_ops_total{op="join",outcome="ok"} 1');
  return text;
}

/** The metric families of an exposition (its `# TYPE` lines), by name. */
function familiesOf(exposition: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const [, name = "", type = ""] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    families.set(name, type);
  return families;
}

/** The family a series name belongs to: itself, or a histogram's (`_bucket`, `_sum`, `_count`). */
function familyOf(series: string, families: ReadonlyMap<string, string>): string | undefined {
  if (families.has(series)) return series;
  const base = series.replace(/_(bucket|sum|count)$/, "");
  return families.get(base) === "histogram" ? base : undefined;
}

/** The label names a family's series carry once scraped. */
function labelsOf(node: RunningNode, family: string, series: string): Set<string> {
  // prom-client keeps a metric's label names on the metric; its types do not declare them.
  const metric = node.metrics.registry.getSingleMetric(family) as
    { labelNames?: readonly string[] } | undefined;
  const labels = new Set([...scrapeLabels, ...(metric?.labelNames ?? [])]);
  if (series.endsWith("_bucket")) labels.add("le");
  return labels;
}

/**
 * What the queries name that the node does not serve: `unknown metric X`, or `X has no label L` (matchers
 * and `by (…)` lists). Every Foyer family is registered on an embedded node too (the drain and failover ones
 * read 0 there), so fleet-only metrics are checked against this scrape like the rest; labels are checked
 * against the node's metric registry, since a labelled counter never counted has no series to show them.
 */
function problemsOf(queries: readonly string[], node: RunningNode, exposition: string): string[] {
  const families = familiesOf(exposition);
  const problems: string[] = [];
  for (const query of queries) {
    const { selectors, groupingLabels } = promqlNames(query);
    const known = new Set<string>(scrapeLabels);
    for (const { metric, labels } of selectors) {
      if (prometheusOwn.has(metric)) continue;
      const family = familyOf(metric, families);
      if (family === undefined) {
        problems.push(`unknown metric ${metric} in ${query}`);
        continue;
      }
      const carried = labelsOf(node, family, metric);
      for (const label of carried) known.add(label);
      for (const label of labels) if (!carried.has(label)) problems.push(`${metric} has no label ${label}`);
    }
    for (const label of groupingLabels) if (!known.has(label)) problems.push(`no label ${label} in ${query}`);
  }
  return problems;
}

describe.skipIf(skipPromtool)(
  `a live node's metrics${skipPromtool ? ` (skipped: ${promtoolPath} is missing; apt-get install -y prometheus)` : ""}`,
  () => {
    it("pass promtool check metrics, which flags a badly named metric", async () => {
      const node = await setup();
      const exposition = await scrapeAfterTraffic(node);
      const checked = await promtool(["check", "metrics"], exposition);
      const problems = (checked.stdout + checked.stderr).split("\n").filter((line) => line.trim() !== "");
      expect(problems.filter((line) => !promClientLint.includes(line))).toEqual([]);
      expect(checked.code === 0 || problems.length > 0).toBe(true);

      // The Foyer families alone lint clean, so promtool's exit code says so.
      const foyerOnly = exposition
        .split("\n")
        .filter((line) => /^(# (HELP|TYPE) )?foyer_/.test(line))
        .join("\n");
      expect(foyerOnly).toContain("# TYPE foyer_ops_total counter");
      expect(await promtool(["check", "metrics"], `${foyerOnly}\n`)).toMatchObject({ code: 0 });

      const misnamed =
        "# HELP foyer_lobbies_total Lobbies\n# TYPE foyer_lobbies_total gauge\nfoyer_lobbies_total 1\n";
      const flagged = await promtool(["check", "metrics"], misnamed);
      expect(flagged.code).not.toBe(0);
      expect(flagged.stdout + flagged.stderr).toContain("foyer_lobbies_total");
    });
  },
);

describe("the alert rules' and the dashboard's queries", () => {
  it("name only metrics and labels a live node serves", async () => {
    const node = await setup();
    const exposition = await scrapeAfterTraffic(node);
    const alerts = alertRulesOf(readFileSync(alertsFile, "utf8")).map((rule) => rule.expr);
    const dashboard = dashboardQueriesOf(readDashboard()).map((query) => withVariablesReplaced(query.expr));
    expect(alerts.length).toBeGreaterThan(10);
    expect(dashboard.length).toBeGreaterThan(20);
    expect(problemsOf([...alerts, ...dashboard], node, exposition)).toEqual([]);

    // The check sees a misspelt metric, a label the metric does not have, and a grouping by one.
    expect(
      problemsOf(
        [
          "sum(rate(foyer_op_total[5m]))",
          'foyer_lobbies{lobby_type="ranked"}',
          "sum by (code) (rate(foyer_ops_total[5m]))",
        ],
        node,
        exposition,
      ),
    ).toEqual([
      "unknown metric foyer_op_total in sum(rate(foyer_op_total[5m]))",
      "foyer_lobbies has no label lobby_type",
      "no label code in sum by (code) (rate(foyer_ops_total[5m]))",
    ]);
  });
});
