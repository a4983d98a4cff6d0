import { readFileSync } from "node:fs";

/** The alert rules, their unit tests and the dashboard, in the repository. */
export const alertsFile = "ops/monitoring/alerts.yml";
export const alertsTestFile = "ops/monitoring/alerts.test.yml";
export const dashboardFile = "ops/monitoring/grafana-dashboard.json";

/** One alerting rule: its name and its PromQL. */
export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
}

/**
 * The rules of a rule file in the shape alerts.yml keeps (`- alert:` then `expr:`, inline or as a `|`
 * block). Not a YAML parser: the tests check that it found as many expressions as `alert:` lines.
 */
export function alertRulesOf(text: string): AlertRule[] {
  const lines = text.split("\n");
  const rules: AlertRule[] = [];
  let alert: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const named = /^\s*- alert:\s*(\S+)\s*$/.exec(line);
    if (named) alert = named[1];
    const expr = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!expr || alert === undefined) continue;
    const [, indent = "", inline = ""] = expr;
    if (inline !== "|" && inline !== ">-" && inline !== "|-") {
      rules.push({ alert, expr: inline });
      continue;
    }
    const block: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] ?? "";
      if (next.trim() !== "" && next.search(/\S/) <= indent.length) break;
      block.push(next.trim());
    }
    rules.push({ alert, expr: block.join(" ").trim() });
  }
  return rules;
}

/** For each alert a promtool test file evaluates: whether some case expects it firing, and some not. */
export function alertCasesOf(text: string): Map<string, { fires: boolean; quiet: boolean }> {
  const cases = new Map<string, { fires: boolean; quiet: boolean }>();
  let alert: string | undefined;
  for (const line of text.split("\n")) {
    const named = /^\s*(?:- )?alertname:\s*(\S+)\s*$/.exec(line);
    if (named) alert = named[1];
    const expected = /^\s*exp_alerts:\s*(.*)$/.exec(line);
    if (!expected || alert === undefined) continue;
    const entry = cases.get(alert) ?? { fires: false, quiet: false };
    if (expected[1]?.trim() === "[]") entry.quiet = true;
    else entry.fires = true;
    cases.set(alert, entry);
  }
  return cases;
}

interface DashboardPanel {
  readonly id?: number;
  readonly title?: string;
  readonly type?: string;
  readonly datasource?: { readonly uid?: string };
  readonly targets?: readonly { readonly expr?: string; readonly datasource?: { readonly uid?: string } }[];
  readonly panels?: readonly DashboardPanel[];
}

/** A Grafana dashboard, the parts the tests read. */
export interface Dashboard {
  readonly uid?: string;
  readonly title?: string;
  readonly panels: readonly DashboardPanel[];
  readonly templating?: { readonly list: readonly { readonly name: string; readonly type: string }[] };
}

/** The dashboard JSON. */
export function readDashboard(path = dashboardFile): Dashboard {
  return JSON.parse(readFileSync(path, "utf8")) as Dashboard;
}

/** Every panel of a dashboard, those inside collapsed rows too. */
export function panelsOf(dashboard: Dashboard): DashboardPanel[] {
  const all: DashboardPanel[] = [];
  const walk = (panels: readonly DashboardPanel[]): void => {
    for (const panel of panels) {
      all.push(panel);
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  return all;
}

/** Each panel query of a dashboard: its panel's title and its PromQL. */
export function dashboardQueriesOf(
  dashboard: Dashboard,
): { readonly panel: string; readonly expr: string }[] {
  return panelsOf(dashboard).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title ?? "?", expr: target.expr ?? "" })),
  );
}

/** A dashboard query as Prometheus would receive it: Grafana's variables replaced by plain values. */
export function withVariablesReplaced(expr: string): string {
  return expr
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$__interval", "1m")
    .replaceAll("$job", "foyer")
    .replaceAll("$instance", ".*");
}

/**
 * The names in the first column of the tables of a Markdown section (`## title` to the next `## `),
 * backticks removed.
 */
export function tableNamesOf(markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) return [];
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const names: string[] = [];
  for (const line of section.split("\n")) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1]?.trim();
    if (cell === undefined || /^-+$/.test(cell) || cell === "alert") continue;
    names.push(cell.replaceAll("`", ""));
  }
  return names;
}
