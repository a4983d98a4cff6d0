import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  alertCasesOf,
  alertRulesOf,
  alertsFile,
  alertsTestFile,
  dashboardQueriesOf,
  panelsOf,
  readDashboard,
  tableNamesOf,
  withVariablesReplaced,
} from "../support/monitoring-files.ts";
import { promtool, promtoolPath, skipPromtool } from "../support/promtool.ts";

/** promtool's unit tests evaluate a day of series for the "usual level" alerts: seconds, more under load. */
const promtoolTimeout = 120_000;

/** The alerts of docs/operations.md's tables, and the rule that implements each. */
const ruleOfDocsAlert: Record<string, string> = {
  "node down": "FoyerNodeDown",
  "slow ops": "FoyerSlowOps",
  "slow persists": "FoyerSlowPersists",
  "event loop lag": "FoyerEventLoopLag",
  "errors answered": "FoyerErrorsAnswered",
  "UNAVAILABLE / ops failing": "FoyerOpsFailing",
  "sockets closed by the node": "FoyerSocketsClosed",
  "connection limit": "FoyerConnectionLimit",
  "origin refused": "FoyerOriginRefused",
  redirects: "FoyerRedirects",
  memory: "FoyerMemory",
  "sessions without members": "FoyerSessionsWithoutMembers",
  "slow moves in a drain": "FoyerSlowDrainMoves",
  "queue backing up": "FoyerQueueBackingUp",
};

const scratch = mkdtempSync(join(tmpdir(), "foyer-monitoring-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const rulesText = readFileSync(alertsFile, "utf8");
const rules = alertRulesOf(rulesText);

describe("the alert rules and the dashboard, read without promtool", () => {
  it("has a rule for every alert docs/operations.md names, and one expression per rule", () => {
    const docsAlerts = tableNamesOf(readFileSync("docs/operations.md", "utf8"), "Alerts");
    expect(docsAlerts.length).toBeGreaterThan(10);
    expect(docsAlerts.filter((name) => !(name in ruleOfDocsAlert))).toEqual([]);
    expect(rules.length).toBe(rulesText.match(/^\s*- alert:/gm)?.length);
    expect(rules.every((rule) => rule.expr !== "")).toBe(true);
    expect(rules.map((rule) => rule.alert).sort()).toEqual(Object.values(ruleOfDocsAlert).sort());
  });

  it("unit-tests every alert with series that fire it and series that do not", () => {
    const cases = alertCasesOf(readFileSync(alertsTestFile, "utf8"));
    for (const { alert } of rules) {
      expect({ alert, ...cases.get(alert) }).toEqual({ alert, fires: true, quiet: true });
    }
  });

  it("dashboard: unique panel ids, every query on the datasource variable", () => {
    const dashboard = readDashboard();
    expect(dashboard.uid).toBe("foyer-nodes");
    expect(dashboard.templating?.list.map((v) => v.name)).toEqual(["datasource", "job", "instance"]);
    const panels = panelsOf(dashboard);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels.filter((p) => p.type !== "row")) {
      expect({ title: panel.title, uid: panel.datasource?.uid }).toEqual({
        title: panel.title,
        uid: "${datasource}",
      });
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe("${datasource}");
    }
  });
});

describe.skipIf(skipPromtool)(
  `the alert rules under promtool${skipPromtool ? ` (skipped: ${promtoolPath} is missing; apt-get install -y prometheus)` : ""}`,
  () => {
    it(
      "promtool check rules passes, and fails on a broken expression",
      { timeout: promtoolTimeout },
      async () => {
        const checked = await promtool(["check", "rules", alertsFile]);
        expect(checked.stderr + checked.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
        expect(checked.code).toBe(0);

        const broken = join(scratch, "broken-alerts.yml");
        writeFileSync(broken, rulesText.replace('up{job="foyer"} == 0', 'up{job="foyer"} == (0'));
        const refused = await promtool(["check", "rules", broken]);
        expect(refused.code).not.toBe(0);
        expect(refused.stdout + refused.stderr).toContain('"FoyerNodeDown": could not parse expression');
      },
    );

    it(
      "promtool test rules passes, and fails when a threshold moves",
      { timeout: 2 * promtoolTimeout },
      async () => {
        const tested = await promtool(["test", "rules", alertsTestFile]);
        expect(tested.stdout + tested.stderr).toContain("SUCCESS");
        expect(tested.code).toBe(0);

        // The same tests against rules whose ops-failing threshold is 50 %, not 5 %: its firing case fails.
        const moved = rulesText.replace(
          "sum(rate(foyer_ops_total[5m])) > 0.05",
          "sum(rate(foyer_ops_total[5m])) > 0.5",
        );
        expect(moved).not.toBe(rulesText);
        writeFileSync(join(scratch, "alerts.yml"), moved);
        // Only the ops-failing groups of the tests: the others take seconds and test nothing moved here.
        const [header = "", ...groups] = readFileSync(alertsTestFile, "utf8").split(/^(?= {2}- interval:)/m);
        const opsFailing = groups.filter((group) => group.includes("alertname: FoyerOpsFailing"));
        expect(opsFailing.length).toBe(2);
        writeFileSync(join(scratch, "alerts.test.yml"), header + opsFailing.join(""));
        const failed = await promtool(["test", "rules", join(scratch, "alerts.test.yml")]);
        expect(failed.code).not.toBe(0);
        expect(failed.stdout + failed.stderr).toContain("alertname: FoyerOpsFailing");
      },
    );

    it("every dashboard query is valid PromQL", { timeout: promtoolTimeout }, async () => {
      const queries = dashboardQueriesOf(readDashboard());
      expect(queries.length).toBeGreaterThan(20);
      // promtool parses PromQL when it checks rules: each query becomes a recording rule.
      const asRules = (exprs: readonly string[]): string =>
        `groups:\n  - name: dashboard\n    rules:\n${exprs
          .map(
            (expr, i) => `      - record: foyer_dashboard:query_${i}\n        expr: ${JSON.stringify(expr)}`,
          )
          .join("\n")}\n`;
      const file = join(scratch, "dashboard-queries.yml");
      writeFileSync(file, asRules(queries.map(({ expr }) => withVariablesReplaced(expr))));
      const checked = await promtool(["check", "rules", file]);
      expect(checked.stderr + checked.stdout).toContain(`SUCCESS: ${queries.length} rules found`);

      // A query with one parenthesis too many is refused.
      writeFileSync(file, asRules([`${withVariablesReplaced(queries[0]?.expr ?? "")})`]));
      const refused = await promtool(["check", "rules", file]);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain("could not parse expression");
    });
  },
);
