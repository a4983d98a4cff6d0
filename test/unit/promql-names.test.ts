import { describe, expect, it } from "vitest";
import { alertCasesOf, alertRulesOf, tableNamesOf } from "../support/monitoring-files.ts";
import { promqlNames } from "../support/promql-names.ts";

describe("the PromQL names the monitoring tests check", () => {
  it("tells metrics from functions, aggregations, keywords, durations and strings", () => {
    expect(
      promqlNames(
        'histogram_quantile(0.99, sum by (kind, le) (rate(foyer_migration_pause_seconds_bucket{kind="lobby", le!="x{"}[1m] offset 5m))) > 0.5',
      ),
    ).toEqual({
      selectors: [{ metric: "foyer_migration_pause_seconds_bucket", labels: ["kind", "le"] }],
      groupingLabels: ["kind", "le"],
    });
    expect(
      promqlNames(
        'sum(rate(a_total[$__rate_interval])) / on (instance) group_left sum without (op) (b{x=~"1|2"}) or c * 0 and bool d',
      ),
    ).toEqual({
      selectors: [
        { metric: "a_total", labels: [] },
        { metric: "b", labels: ["x"] },
        { metric: "c", labels: [] },
        { metric: "d", labels: [] },
      ],
      groupingLabels: ["instance", "op"],
    });
    expect(promqlNames("process_resident_memory_bytes > 0.9 * 2e9").selectors).toEqual([
      { metric: "process_resident_memory_bytes", labels: [] },
    ]);
  });

  it("reads a rule file's expressions, inline and in blocks, and a test file's cases", () => {
    const rules = [
      "groups:",
      "  - name: g",
      "    rules:",
      "      - alert: One",
      "        expr: up == 0",
      "        for: 1m",
      "      - alert: Two",
      "        expr: |",
      "          sum(a)",
      "            > 1",
      "        labels: { severity: info }",
    ].join("\n");
    expect(alertRulesOf(rules)).toEqual([
      { alert: "One", expr: "up == 0" },
      { alert: "Two", expr: "sum(a) > 1" },
    ]);
    const tests = [
      "      - alertname: One",
      "        exp_alerts: []",
      "      - alertname: Two",
      "        exp_alerts:",
      "          - exp_labels: {}",
    ].join("\n");
    expect([...alertCasesOf(tests)]).toEqual([
      ["One", { fires: false, quiet: true }],
      ["Two", { fires: true, quiet: false }],
    ]);
  });

  it("reads the first column of a section's tables", () => {
    const markdown =
      "# T\n\n## Alerts\n\n| alert | x |\n| --- | --- |\n| `A` / b | 1 |\n\n| c | 2 |\n\n## Next\n\n| d | 3 |\n";
    expect(tableNamesOf(markdown, "Alerts")).toEqual(["A / b", "c"]);
  });
});
