// Building the page's content. Every value read from the service goes into
// the DOM as text (a Text node, textContent or a property), never as
// markup: a setting that holds "<script>" is shown as those characters.

// el('td', {className: 'x'}, 'text', childNode, ...): attributes set as
// properties (or with setAttribute for aria-* and data-*), children
// appended as nodes or text.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name.startsWith('aria-') || name.startsWith('data-') || name === 'list' || name === 'for') {
      node.setAttribute(name, String(value));
    } else {
      node[name] = value;
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child)); // a string becomes a Text node
  }
}

// Replaces what `node` holds with `children`.
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

// A value as the operator reads it: strings as they are, anything else as
// JSON.
export function valueText(value) {
  if (value === undefined) return '(not set)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function $(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no element #${id}`);
  return node;
}
