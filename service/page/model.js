// The pure part of the page: documents in, documents or lists out. Nothing
// here touches the DOM or the network.

// The keys the form edits; everything else of a scope's document is in the
// raw JSON editor.
export const FORM_KEYS = [
  ['tools', 'executionSandbox', 'filesystem'],
  ['tools', 'executionSandbox', 'network'],
  ['tools', 'executionSandbox', 'unixSockets'],
  ['security', 'requireExecutionSandbox'],
  ['permissions', 'allow'],
  ['permissions', 'ask'],
  ['permissions', 'deny'],
  ['permissions', 'defaultMode'],
];

export const PATH_TOKENS = [':root', ':minimal', ':workspace', ':tmpdir', ':home'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// A key path as holdfast spells it (settings/key_path.cpp, to_dotted): a
// dot inside a key is "\.", a slash that starts the path "\/", and a
// backslash is escaped only where it would escape what follows.
export function toDotted(path) {
  let out = '';
  path.forEach((segment, s) => {
    if (s > 0) out += '.';
    const text = String(segment);
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const next = i + 1 < text.length ? text[i + 1] : s + 1 < path.length ? '.' : '';
      const atStart = out.length === 0;
      const escape = c === '.' || (c === '/' && atStart) ||
        (c === '\\' && (next === '.' || next === '\\' || (next === '/' && atStart)));
      if (escape) out += '\\';
      out += c;
    }
  });
  return out;
}

// [[path, value]] of every leaf. With `intoArrays`, array elements are
// leaves of their own (as the origins of merged settings are kept).
export function leaves(value, intoArrays, path = [], out = []) {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const key of Object.keys(value).sort()) leaves(value[key], intoArrays, [...path, key], out);
  } else if (intoArrays && Array.isArray(value) && value.length > 0) {
    value.forEach((item, i) => leaves(item, intoArrays, [...path, String(i)], out));
  } else {
    out.push([path, value]);
  }
  return out;
}

// JSON with object keys sorted, so that two equal documents compare equal.
export function canonical(value) {
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  if (isObject(value)) {
    return '{' + Object.keys(value).sort()
      .map((k) => JSON.stringify(k) + ':' + canonical(value[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}

export function sameDocument(a, b) {
  return canonical(a) === canonical(b);
}

export function withoutRevision(document) {
  const copy = structuredClone(isObject(document) ? document : {});
  delete copy.$revision;
  return copy;
}

export function getPath(document, path) {
  let node = document;
  for (const key of path) {
    if (!isObject(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

function setPath(document, path, value) {
  let node = document;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key];
  }
  node[path[path.length - 1]] = value;
}

// The document without the keys the form edits. An object left empty only
// because its form keys were taken out goes too (so that saving with the
// form unchanged gives the same document back); one that was empty in the
// file stays.
export function stripFormKeys(document) {
  const rest = withoutRevision(document);
  for (const path of FORM_KEYS) {
    const parents = [];
    let node = rest;
    for (const key of path.slice(0, -1)) {
      if (!isObject(node)) break;
      parents.push([node, key]);
      node = node[key];
    }
    if (!isObject(node) || !(path[path.length - 1] in node)) continue;
    delete node[path[path.length - 1]];
    for (let i = parents.length - 1; i >= 0; i--) {
      const [parent, key] = parents[i];
      if (isObject(parent[key]) && Object.keys(parent[key]).length === 0) delete parent[key];
      else break;
    }
  }
  return rest;
}

// The whole document: the raw part with the form's values set in it.
// `form` maps a dotted form key to its value, undefined for "not set".
export function composeDocument(rest, form) {
  const document = structuredClone(rest);
  for (const path of FORM_KEYS) {
    const value = form[toDotted(path)];
    if (value !== undefined) setPath(document, path, value);
  }
  return document;
}

// Form keys the raw part also sets: the form is where they are edited.
export function formKeysInRaw(rest) {
  return FORM_KEYS.filter((path) => getPath(rest, path) !== undefined).map(toDotted);
}

// Why a split-form path is refused, or null. The same rules as holdfast's
// policy reader: absolute, ~ or ~/x, or a known token with an optional
// sub-path; no "..", no control characters.
export function pathProblem(text) {
  if (text === '') return 'enter a path';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'a path cannot hold control characters';
  let rest;
  if (text.startsWith('/')) {
    rest = text;
  } else if (text === '~' || text.startsWith('~/')) {
    rest = text.slice(1);
  } else if (text.startsWith(':')) {
    const token = text.split('/')[0];
    if (!PATH_TOKENS.includes(token)) {
      return `unknown token ${token}; use one of ${PATH_TOKENS.join(', ')}`;
    }
    rest = text.slice(token.length);
  } else if (text.startsWith('~')) {
    return '~user is not accepted; write the absolute path';
  } else {
    return 'a path must be absolute (start with /), ~, or a token such as :workspace';
  }
  if (rest.split('/').includes('..')) return '".." is not accepted in a path';
  return null;
}

const typeOf = (v) => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
};

const describe = (v) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

// Checks `value` against the part of JSON Schema holdfast's schema uses
// (type, enum, properties, additionalProperties, items, oneOf, minimum,
// maximum). Returns [{key, message}]; the service checks again on save.
export function schemaProblems(schema, value, path = [], out = []) {
  if (!schema || typeof schema !== 'object') return out;
  const key = toDotted(path);
  if (schema.oneOf) {
    const fits = schema.oneOf.filter((s) => schemaProblems(s, value, path, []).length === 0);
    if (fits.length !== 1) {
      const near = schema.oneOf.find((s) => !s.type || s.type === typeOf(value) ||
        (s.type === 'number' && typeOf(value) === 'integer'));
      if (near) schemaProblems(near, value, path, out);
      else out.push({ key, message: `expected ${schema.oneOf.map((s) => s.type).join(' or ')}, found ${describe(value)}` });
    }
    return out;
  }
  if (schema.type) {
    const found = typeOf(value);
    const ok = found === schema.type || (schema.type === 'number' && found === 'integer');
    if (!ok) {
      out.push({ key, message: `expected ${schema.type === 'integer' ? 'a whole number' : schema.type}, found ${describe(value)}` });
      return out;
    }
  }
  if (schema.enum && !schema.enum.includes(value)) {
    out.push({ key, message: `expected one of ${schema.enum.map(describe).join(', ')}, found ${describe(value)}` });
    return out;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ key, message: `expected at least ${schema.minimum}, found ${value}` });
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ key, message: `expected at most ${schema.maximum}, found ${value}` });
  }
  if (isObject(value)) {
    const properties = schema.properties || {};
    for (const [k, v] of Object.entries(value)) {
      if (k in properties) {
        schemaProblems(properties[k], v, [...path, k], out);
      } else if (schema.additionalProperties === false) {
        out.push({ key: toDotted([...path, k]), message: `unknown key ${describe(k)}; known here: ${Object.keys(properties).join(', ')}` });
      } else if (isObject(schema.additionalProperties)) {
        schemaProblems(schema.additionalProperties, v, [...path, k], out);
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => schemaProblems(schema.items, item, [...path, String(i)], out));
  }
  return out;
}

// ---- a save made elsewhere while you edited ------------------------------------

const pathKey = (path) => JSON.stringify(path);

// Leaf path (as JSON text) → [path, value]; arrays are whole values.
function leafMap(document) {
  return new Map(leaves(withoutRevision(document), false)
    .filter(([path]) => path.length > 0).map(([path, value]) => [pathKey(path), [path, value]]));
}

// The leaf keys whose value differs between two documents.
function changedLeaves(before, after) {
  const a = leafMap(before);
  const b = leafMap(after);
  const keys = new Set([...a.keys(), ...b.keys()]);
  return new Map([...keys]
    .filter((k) => canonical(a.get(k)?.[1]) !== canonical(b.get(k)?.[1]))
    .map((k) => [k, (a.get(k) || b.get(k))[0]]));
}

const isPrefix = (short, long) => short.length <= long.length && short.every((s, i) => s === long[i]);

function deletePath(document, path) {
  const parents = [];
  let node = document;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node) || !(key in node)) return;
    parents.push([node, key]);
    node = node[key];
  }
  if (!isObject(node)) return;
  delete node[path[path.length - 1]];
  // An object left empty by the deletion goes too.
  for (let i = parents.length - 1; i >= 0; i--) {
    const [parent, key] = parents[i];
    if (isObject(parent[key]) && Object.keys(parent[key]).length === 0) delete parent[key];
    else break;
  }
}

// What a conflict looks like key by key: `base` is what you loaded,
// `theirs` the file now, `yours` the form. One row per key either side
// changed: {key, base, theirs, yours, changedBy: 'you' | 'them' | 'both'}
// ('both': you both changed it, or yours replaces a part they changed).
export function threeWay(base, theirs, yours) {
  const mine = changedLeaves(base, yours);
  const their = changedLeaves(base, theirs);
  const value = (doc, path) => getPath(withoutRevision(doc), path);
  const overlaps = (path, others) => [...others.values()].some((o) => isPrefix(o, path) || isPrefix(path, o));
  const rows = new Map();
  for (const [k, path] of [...their, ...mine]) {
    if (rows.has(k)) continue;
    const byMe = mine.has(k) || (their.has(k) && overlaps(path, mine));
    const byThem = their.has(k) || (mine.has(k) && overlaps(path, their));
    rows.set(k, {
      key: toDotted(path),
      path,
      base: value(base, path),
      theirs: value(theirs, path),
      yours: value(yours, path),
      changedBy: byMe && byThem ? 'both' : byMe ? 'you' : 'them',
    });
  }
  return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// Their document with only your changes applied on top: every key you did
// not change keeps their value (a tightening they saved stays).
export function applyMineOnTheirs(base, theirs, yours) {
  const result = withoutRevision(theirs);
  const mine = changedLeaves(base, yours);
  const paths = [...mine.values()];
  // Removals first, then values (a key that became an object, or stopped
  // being one, is a removal and a value).
  for (const path of paths) if (getPath(withoutRevision(yours), path) === undefined) deletePath(result, path);
  for (const path of paths) {
    const v = getPath(withoutRevision(yours), path);
    if (v !== undefined) setPath(result, path, structuredClone(v));
  }
  return result;
}
