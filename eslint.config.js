// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const io = ["ws", "nats", "pino", "msgpackr", "node:*", "net", "http", "fs", "crypto"];

export default tseslint.config(
  // ops/bench/peers has its own package.json and node_modules (Colyseus), which the root does not install:
  // typed rules cannot resolve its imports here (tsconfig.json excludes it too). Its README runs it.
  { ignores: ["node_modules/**", "ops/bench/peers/**", "coverage/**", "dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // actors/ is pure: no I/O, no wall clock, no ambient randomness. Effects leave through the runtime.
    files: ["actors/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: io.map((group) => ({
            group: [group],
            message: "actors/ is pure; effects go out through the runtime",
          })),
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "use ctx.now",
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: "use ctx.random",
        },
        { selector: "CallExpression[callee.name='setTimeout']", message: "return a timer effect" },
        { selector: "CallExpression[callee.name='setInterval']", message: "return a timer effect" },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      // `eventually(() => expect(...))` reads best as a shorthand arrow.
      "@typescript-eslint/no-confusing-void-expression": "off",
    },
  },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
);
