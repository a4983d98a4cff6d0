/** A tiny DOM builder for the pages: text goes in as text nodes, never as HTML. */
export function el(
  tag: string,
  attrs: Readonly<Record<string, string>> = {},
  ...children: readonly (Node | string)[]
): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** The element with this id; a page without it is a bug in the page's HTML. */
export function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

/** The input with this id. */
export function inputById(id: string): HTMLInputElement {
  const node = byId(id);
  if (!(node instanceof HTMLInputElement)) throw new Error(`#${id} is not an input`);
  return node;
}

/** Enables or disables the button with this id. */
export function enable(id: string, enabled: boolean): void {
  const node = byId(id);
  if (node instanceof HTMLButtonElement) node.disabled = !enabled;
}
