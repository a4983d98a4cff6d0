import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The house's shape, read from the tree: no import loops, no source file over 400 lines and no function
 * over 80 (STYLE: past those a file or a function is a sign to split). Tests and fixtures are left out.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const sourceFolders = ["actors", "gateway", "fleet", "ops"];
const maxFileLines = 400;
const maxFunctionLines = 80;

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules") yield* sourceFiles(path);
    } else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

const files = sourceFolders.flatMap((folder) => [...sourceFiles(join(root, folder))]);
const parsed = files.map((file) => {
  const text = readFileSync(file, "utf8");
  return { file, text, source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) };
});

/** The relative modules `source` imports or re-exports, type-only ones too, as absolute paths. */
function importsOf(file: string, source: ts.SourceFile): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) {
      found.push(resolve(dirname(file), specifier.text));
    }
  }
  return found;
}

/** Strongly connected components of more than one file (Tarjan), each a loop of imports. */
function importLoops(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const loop: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      loop.push(relative(root, member));
      if (member === node) break;
    }
    if (loop.length > 1) loops.push(loop.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return loops;
}

/** Functions (declarations, methods, arrows) whose body spans more than `max` lines, as `file:line name`. */
function longFunctions(file: string, source: ts.SourceFile, max: number): string[] {
  const long: string[] = [];
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const lines = lineOf(node.end) - lineOf(node.getStart()) + 1;
      if (lines > max) long.push(`${relative(root, file)}:${lineOf(node.getStart()) + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

describe("the source tree's shape", () => {
  it("reads the tree it checks", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("has no import loops", () => {
    const graph = new Map(parsed.map(({ file, source }) => [file, importsOf(file, source)]));
    expect(importLoops(graph)).toEqual([]);
  });

  it(`has no source file over ${maxFileLines} lines`, () => {
    const long = parsed
      .map(({ file, text }) => ({ file: relative(root, file), lines: text.split("\n").length }))
      .filter(({ lines }) => lines > maxFileLines);
    expect(long).toEqual([]);
  });

  it(`has no function over ${maxFunctionLines} lines`, () => {
    expect(parsed.flatMap(({ file, source }) => longFunctions(file, source, maxFunctionLines))).toEqual([]);
  });
});
