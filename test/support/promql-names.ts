/** A series selector of a PromQL expression: its metric name and the label names its matchers use. */
export interface PromqlSelector {
  readonly metric: string;
  readonly labels: readonly string[];
}

/** The metric names and label names a PromQL expression uses. */
export interface PromqlNames {
  readonly selectors: readonly PromqlSelector[];
  /** Labels of `by (…)`, `without (…)`, `on (…)`, `ignoring (…)`, `group_left (…)`, `group_right (…)`. */
  readonly groupingLabels: readonly string[];
}

// Strings, label matchers ({…}), ranges ([5m]), identifiers, numbers and durations, dashboard variables,
// then any one character. Enough of PromQL's lexer to tell metric names from functions and keywords.
const token =
  /\s+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\{(?:[^}"]|"(?:[^"\\]|\\.)*")*\}|\[[^\]]*\]|[A-Za-z_:][A-Za-z0-9_:]*|\d[\d.]*(?:e[+-]?\d+)?[a-z]*|\$[A-Za-z_]+|./gy;
const identifier = /^[A-Za-z_:][A-Za-z0-9_:]*$/;
const grouping = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);
// Aggregations may put `by (…)` before their parenthesis (`sum by (le) (…)`): never a metric here.
const aggregations = ["sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values"];
const keywords = new Set([
  ...aggregations,
  ...grouping,
  ...["bottomk", "topk", "quantile", "and", "or", "unless", "bool", "offset", "inf", "nan"],
]);
const matcher = /([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*"/g;

function tokensOf(expr: string): string[] {
  const tokens: string[] = [];
  token.lastIndex = 0;
  for (let match = token.exec(expr); match !== null; match = token.exec(expr)) {
    if (match[0].trim() !== "") tokens.push(match[0]);
  }
  return tokens;
}

/**
 * The metric names (with their matchers' label names) and grouping labels of a PromQL expression. An
 * identifier followed by `(` is a function or an aggregation; `by (…)` and the like list labels.
 */
export function promqlNames(expr: string): PromqlNames {
  const tokens = tokensOf(expr);
  const selectors: PromqlSelector[] = [];
  const groupingLabels: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const current = tokens[i] ?? "";
    if (!identifier.test(current)) continue;
    const next = tokens[i + 1] ?? "";
    if (grouping.has(current) && next === "(") {
      for (i += 2; i < tokens.length && tokens[i] !== ")"; i++) {
        const label = tokens[i] ?? "";
        if (identifier.test(label)) groupingLabels.push(label);
      }
    } else if (next !== "(" && !keywords.has(current.toLowerCase())) {
      const labels = next.startsWith("{") ? [...next.matchAll(matcher)].map((m) => m[1] ?? "") : [];
      selectors.push({ metric: current, labels });
    }
  }
  return { selectors, groupingLabels };
}
