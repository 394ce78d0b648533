// The form of the scope being edited: fields in, a document out, and the
// problems shown at the fields they belong to. No network here.
import { $, el } from './dom.js';
import {
  composeDocument, formKeysInRaw, getPath, pathProblem, schemaProblems, stripFormKeys, toDotted,
  withoutRevision,
} from './model.js';

// Called when a split-form row is removed (the page re-checks the form).
let onRowsChanged = () => {};
export function whenRowsChange(callback) {
  onRowsChanged = callback;
}

export const formField = {
  'tools.executionSandbox.network': 'network',
  'tools.executionSandbox.unixSockets': 'unix-sockets',
  'security.requireExecutionSandbox': 'require-sandbox',
  'permissions.allow': 'perm-allow',
  'permissions.ask': 'perm-ask',
  'permissions.deny': 'perm-deny',
  'permissions.defaultMode': 'default-mode',
};

let rowCount = 0;

export function splitRow(path = '', access = 'read') {
  rowCount += 1;
  const pathId = `split-path-${rowCount}`;
  const accessId = `split-access-${rowCount}`;
  const pathInput = el('input', {
    id: pathId, type: 'text', value: path, spellcheck: false, autocomplete: 'off', list: 'path-tokens', className: 'split-path',
  });
  const accessSelect = el('select', { id: accessId, className: 'split-access' },
    ['read', 'write', 'deny'].map((a) => el('option', { value: a }, a)));
  accessSelect.value = access === 'none' ? 'deny' : access;
  const row = el('tr', {});
  const remove = el('button', { type: 'button', className: 'remove' }, 'Remove');
  remove.addEventListener('click', () => {
    const next = row.nextElementSibling || row.previousElementSibling;
    row.remove();
    onRowsChanged();
    (next ? next.querySelector('input') : $('split-add')).focus();
  });
  // Each control is labelled by its own label, which names the row's path.
  const pathLabel = el('label', { for: pathId, className: 'visually-hidden' }, `Path ${rowCount}`);
  const accessLabel = el('label', { for: accessId, className: 'visually-hidden' }, `Access for path ${rowCount}`);
  remove.setAttribute('aria-label', `Remove path ${rowCount}`);
  row.append(el('td', {}, pathLabel, pathInput), el('td', {}, accessLabel, accessSelect), el('td', {}, remove));
  return row;
}

export function showFilesystemForm() {
  const form = $('fs-form').value;
  $('simple-fields').hidden = form !== 'simple';
  $('split-fields').hidden = form !== 'split';
}

const lines = (text) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');

const NETWORK_KEY = 'tools.executionSandbox.network';
// The allow-list's two lists: the key each is saved at and its textarea.
const NETWORK_LISTS = [['allow', 'network-allow'], ['deny', 'network-deny']];

const isListObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// The allow-list's textareas are shown only with "allow-list" chosen.
export function showNetworkRules() {
  $('network-rules').hidden = $('network').value !== 'allow-list';
}

// The network as the form holds it: "open", "closed", an allow-list object
// ({allow, deny}; an empty list is left out unless the file had it, and an
// allow-list with neither is {allow: []}), or undefined when not set here.
function readNetwork() {
  const choice = $('network').value;
  if (choice === '') return undefined;
  if (choice !== 'allow-list') return choice;
  const value = {};
  for (const [list, id] of NETWORK_LISTS) {
    const entries = lines($(id).value);
    if (entries.length || $(id).dataset.emptyList === 'yes') value[list] = entries;
  }
  // An allow-list that allows nothing still says so.
  if (!Object.keys(value).length) value.allow = [];
  return value;
}

function fillNetwork(value) {
  const rules = isListObject(value) ? value : {};
  $('network').value = isListObject(value) ? 'allow-list' : value === undefined ? '' : String(value);
  for (const [list, id] of NETWORK_LISTS) {
    const entries = rules[list];
    $(id).value = Array.isArray(entries) ? entries.join('\n') : '';
    $(id).dataset.emptyList = Array.isArray(entries) && entries.length === 0 ? 'yes' : 'no';
  }
  showNetworkRules();
}

// Which line of an allow-list textarea holds entry N (0-based) of its
// list: the Nth non-empty line, counted as the operator sees them.
function lineOfEntry(textarea, n) {
  let seen = -1;
  const all = textarea.value.split('\n');
  for (let i = 0; i < all.length; i++) {
    if (all[i].trim() !== '') seen += 1;
    if (seen === n) return { line: i + 1, text: all[i].trim() };
  }
  return { line: n + 1, text: null };
}

// Puts `document` (one scope's, as read) into the form.
export function fillForm(document) {
  const doc = withoutRevision(document);
  const filesystem = getPath(doc, ['tools', 'executionSandbox', 'filesystem']);
  const splitBody = $('split-table').tBodies[0];
  splitBody.replaceChildren();
  if (typeof filesystem === 'string') {
    $('fs-form').value = 'simple';
    $('fs-simple').value = filesystem;
  } else if (filesystem && typeof filesystem === 'object' && !Array.isArray(filesystem)) {
    $('fs-form').value = 'split';
    for (const [path, access] of Object.entries(filesystem)) splitBody.append(splitRow(path, access));
  } else {
    $('fs-form').value = '';
  }
  showFilesystemForm();
  for (const [key, id] of Object.entries(formField)) {
    const value = getPath(doc, key.split('.'));
    const field = $(id);
    if (key === NETWORK_KEY) {
      fillNetwork(value);
    } else if (field.tagName === 'TEXTAREA') {
      field.value = Array.isArray(value) ? value.join('\n') : '';
      // An empty list in the file stays one when the field is left empty.
      field.dataset.emptyList = Array.isArray(value) && value.length === 0 ? 'yes' : 'no';
    } else {
      field.value = value === undefined ? '' : String(value);
    }
  }
  $('raw').value = JSON.stringify(stripFormKeys(doc), null, 2);
  clearErrors();
}

// What the form holds as a document, and the problems found at its fields
// (checked against `schema` when given).
export function readForm(schema) {
  const problems = [];
  const form = {};
  const fsForm = $('fs-form').value;
  if (fsForm === 'simple') form['tools.executionSandbox.filesystem'] = $('fs-simple').value;
  if (fsForm === 'split') {
    const entries = {};
    for (const row of $('split-table').tBodies[0].rows) {
      const input = row.querySelector('input');
      const path = input.value.trim();
      const problem = pathProblem(path) || (path in entries ? `${path} is listed twice` : null);
      if (problem) problems.push({ field: input, message: problem });
      entries[path] = row.querySelector('select').value;
    }
    if (!Object.keys(entries).length) problems.push({ field: $('split-add'), message: 'add at least one path, or choose another filesystem form' });
    form['tools.executionSandbox.filesystem'] = entries;
  }
  for (const [key, id] of Object.entries(formField)) {
    const field = $(id);
    if (key === NETWORK_KEY) {
      const network = readNetwork();
      if (network !== undefined) form[key] = network;
    } else if (field.tagName === 'TEXTAREA') {
      const rules = lines(field.value);
      if (rules.length || field.dataset.emptyList === 'yes') form[key] = rules;
    } else if (field.value !== '') {
      form[key] = key === 'security.requireExecutionSandbox' ? field.value === 'true' : field.value;
    }
  }
  let rest = {};
  try {
    rest = $('raw').value.trim() === '' ? {} : JSON.parse($('raw').value);
    if (rest === null || typeof rest !== 'object' || Array.isArray(rest)) {
      problems.push({ field: $('raw'), message: 'the document must be a JSON object: { ... }' });
      rest = {};
    }
  } catch (e) {
    problems.push({ field: $('raw'), message: `not JSON: ${e.message}` });
  }
  const doubled = formKeysInRaw(rest);
  if (doubled.length) {
    problems.push({ field: $('raw'), message: `set ${doubled.join(', ')} with the form above, not here` });
  }
  delete rest.$revision;
  const document = composeDocument(rest, form);
  if (schema && !problems.some((p) => p.field === $('raw'))) {
    for (const p of schemaProblems(schema, document)) problems.push(problemAt(p.key, p.message));
  }
  return { document, problems };
}

// A problem the schema or the service found at `key` (dotted), as the
// form shows it: at its control, an allow-list entry with its line.
export function problemAt(key, message) {
  for (const [list, id] of NETWORK_LISTS) {
    // "...network.allow.1" (the schema's key path) or "...network.allow[1]".
    const prefix = `${NETWORK_KEY}.${list}`;
    const index = key.startsWith(prefix) ? /^(?:\.(\d+)|\[(\d+)\])$/.exec(key.slice(prefix.length)) : null;
    const n = index ? Number(index[1] ?? index[2]) : NaN;
    if (Number.isInteger(n) && $('network').value === 'allow-list') {
      const { line, text } = lineOfEntry($(id), n);
      const label = list === 'allow' ? 'Allowed hosts' : 'Denied hosts';
      return { field: $(id), message: `${label}, line ${line}${text === null ? '' : ` (${text})`}: ${message} [${key}]` };
    }
  }
  return { field: fieldForKey(key), message: key ? `${key}: ${message}` : message };
}

// The control a problem at `key` (dotted) belongs to.
export function fieldForKey(key) {
  if ($('network').value === 'allow-list') {
    for (const [list, id] of NETWORK_LISTS) {
      if (key === `${NETWORK_KEY}.${list}` || key.startsWith(`${NETWORK_KEY}.${list}.`)) return $(id);
    }
  }
  const fsKey = 'tools.executionSandbox.filesystem';
  if (key === fsKey) return $('fs-form').value === 'simple' ? $('fs-simple') : $('fs-form');
  if (key.startsWith(`${fsKey}.`)) {
    for (const row of $('split-table').tBodies[0].rows) {
      const input = row.querySelector('input');
      if (`${fsKey}.${toDotted([input.value.trim()])}` === key || `${fsKey}.${input.value.trim()}` === key) return row.querySelector('select');
    }
    return $('fs-form');
  }
  for (const [formKey, id] of Object.entries(formField)) {
    if (key === formKey || key.startsWith(`${formKey}.`)) return $(id);
  }
  return $('raw');
}

export function errorNodeFor(field) {
  if (field.closest('#split-table') || field === $('split-add')) return $('split-error');
  const id = `${field.id}-error`;
  let node = document.getElementById(id);
  if (!node) {
    node = el('p', { id, className: 'field-error' });
    field.insertAdjacentElement('afterend', node);
  }
  return node;
}

// A field's aria-describedby: its error, and the hint it always has
// (data-hint) if any.
function describeBy(field, errorId) {
  const ids = [errorId, field.dataset.hint].filter(Boolean);
  if (ids.length) field.setAttribute('aria-describedby', ids.join(' '));
  else field.removeAttribute('aria-describedby');
}

export function showProblems(problems) {
  clearErrors();
  for (const { field, message } of problems) {
    const node = errorNodeFor(field);
    node.hidden = false;
    node.append(el('span', { className: 'problem' }, message));
    field.setAttribute('aria-invalid', 'true');
    if (field.tagName !== 'BUTTON') describeBy(field, node.id);
  }
}

export function clearErrors() {
  for (const node of document.querySelectorAll('.field-error')) {
    node.replaceChildren();
    node.hidden = true;
  }
  for (const field of document.querySelectorAll('[aria-invalid]')) {
    field.removeAttribute('aria-invalid');
    describeBy(field, null);
  }
}

export function setFieldError(field, message) {
  const node = errorNodeFor(field);
  node.textContent = message;
  node.hidden = false;
  field.setAttribute('aria-invalid', 'true');
  describeBy(field, node.id);
}

export function clearFieldError(field) {
  const node = errorNodeFor(field);
  node.replaceChildren();
  node.hidden = true;
  field.removeAttribute('aria-invalid');
  describeBy(field, null);
}

// What Unix sockets come to when this scope's form leaves unixSockets
// unset: the default follows the network, and opening the network opens
// them too. Said beside the field, so that it is not a surprise.
export function showUnixSocketsDefault() {
  const note = $('unix-sockets-default');
  if ($('unix-sockets').value !== '') {
    note.hidden = true;
    return;
  }
  const network = $('network').value;
  note.textContent = network === 'open'
    ? 'Not set here: with the network open, Unix sockets default to allow, so a command can reach every host Unix socket the filesystem shows (D-Bus, ssh-agent, container runtimes). Choose pairs or deny to keep them closed.'
    : network === 'closed'
      ? 'Not set here: with the network closed, Unix sockets default to pairs (connected pairs only, no host socket).'
      : network === 'allow-list'
        ? 'Not set here: with an allow-list, Unix sockets default to pairs (connected pairs only, no host socket), as with the network closed.'
        : 'Not set here: the default follows the network in effect (pairs when it is closed or an allow-list, allow when it is open).';
  note.dataset.default = network === 'open' ? 'allow' : network === 'closed' || network === 'allow-list' ? 'pairs' : 'follows';
  note.hidden = false;
}
