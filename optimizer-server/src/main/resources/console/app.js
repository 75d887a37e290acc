// Firn console: a single page over the server's REST API (/api/v1, openapi.yaml). Plain modern JS,
// no library and no build step; every text from the server goes through textContent (see h()).
'use strict';

const API = '/api/v1';
const REFRESH_MS = 5000;
const view = { page: null, args: [], timer: null, busy: false, again: false };
const ui = {
  tables: { filter: '', status: '', health: '', sort: 'health', asc: true },
  plan: {},     // table -> plan answer or error, kept across refreshes
  result: {},   // table -> last action result
  processOpen: {},
};

// ------------------------------------------------------------------ helpers

/** Creates an element; children are nodes or text (never parsed as HTML). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, options) {
  const response = await fetch(API + path, Object.assign({ headers: { Accept: 'application/json' } }, options));
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = { message: text }; }
  if (!response.ok) {
    throw new ApiError(response.status, (body && body.message) || response.statusText);
  }
  return body;
}

/** Path segments of a table: catalog, namespace, table (each URL-encoded). */
function tablePath(name) {
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  return [name.slice(0, first), name.slice(first + 1, last), name.slice(last + 1)]
    .map(encodeURIComponent).join('/');
}
const qualified = (t) => `${t.catalog}.${t.namespace}.${t.table}`;

function bytes(n) {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0; let v = Number(n);
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v.toFixed(0) : v.toFixed(v < 10 ? 2 : 1)) + ' ' + units[i];
}
const int = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'));
function duration(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const sec = Math.round(seconds);
  if (sec < 60) return sec + ' s';
  if (sec < 3600) return Math.floor(sec / 60) + ' min ' + (sec % 60) + ' s';
  if (sec < 86400) return Math.floor(sec / 3600) + ' h ' + Math.floor((sec % 3600) / 60) + ' min';
  return Math.floor(sec / 86400) + ' d ' + Math.floor((sec % 86400) / 3600) + ' h';
}
function ago(iso) {
  if (!iso) return '–';
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (Math.abs(seconds) < 2) return 'just now';
  return seconds >= 0 ? duration(seconds) + ' ago' : 'in ' + duration(-seconds);
}
const time = (iso) => (iso ? h('time', { datetime: iso, title: iso }, ago(iso)) : '–');
function between(a, b) {
  if (!a) return '–';
  return duration(((b ? Date.parse(b) : Date.now()) - Date.parse(a)) / 1000);
}
const healthClass = (v) => (v < 40 ? 'critical' : v < 70 ? 'poor' : 'good');
const badge = (text, cls) => h('span', { class: 'badge ' + (cls || String(text)) }, text);
const health = (v) => h('span', { class: 'badge ' + healthClass(v), title: 'health 0–100' }, String(v));

function panel(title, ...children) {
  return h('section', { class: 'panel' }, title ? h('h2', null, title) : null, ...children);
}
function card(label, value, cls, id) {
  return h('div', { class: 'card ' + (cls || ''), id }, h('div', { class: 'v' }, value), h('div', { class: 'k' }, label));
}
function table(headers, rows, empty) {
  if (!rows.length) return h('p', { class: 'empty' }, empty || 'none');
  // A column whose first cell is a number is right-aligned, its header too.
  const first = rows[0].children;
  return h('div', { class: 'scroll' }, h('table', null,
    h('thead', null, h('tr', null, headers.map((x, i) => h('th', { class: first[i] && first[i].classList.contains('num') ? 'num' : null }, x)))),
    h('tbody', null, rows)));
}
const num = (v) => h('td', { class: 'num' }, v);

// ------------------------------------------------------------------ token and actions

const token = () => sessionStorage.getItem('firn.adminToken') || '';
function showMode() {
  const mode = document.getElementById('mode');
  mode.textContent = token() ? 'admin' : 'read-only';
  mode.className = 'badge ' + (token() ? 'admin' : '');
}

function confirmDialog(title, text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
  });
}

async function action(name, verb, query, what) {
  const ok = await confirmDialog(`${what} ${name}?`,
    `This sends POST ${API}/tables/…/${verb}${query} with ${token() ? 'your admin token' : 'no admin token (the server will refuse it)'}.`);
  if (!ok) return;
  const headers = { Accept: 'application/json' };
  if (token()) headers.Authorization = 'Bearer ' + token();
  try {
    const answer = await api(`/tables/${tablePath(name)}/${verb}${query}`, { method: 'POST', headers });
    ui.result[name] = { ok: true, text: `${answer.action}: ${answer.message}` };
  } catch (e) {
    ui.result[name] = { ok: false, text: `${verb} refused (${e.status}): ${e.message}` };
  }
  await render();
}

// ------------------------------------------------------------------ charts

/** Four round ticks (steps of 1, 2, 2.5 or 5 × 10^k) whose top is at or above v. */
function niceMax(v) {
  for (let power = 1; ; power *= 10) {
    for (const m of [0.25, 0.5, 1, 2, 2.5, 5]) {
      if (4 * m * power >= v && Number.isInteger(m * power)) return Math.max(4, 4 * m * power);
    }
  }
}

/** A line chart of series [{name, values: [[ms, v]...]}], time on x. */
function lineChart(series, opts) {
  const W = 640; const H = 190; const L = 46; const R = 10; const T = 10; const B = 22;
  const all = series.flatMap((x) => x.values);
  const svg = s('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': opts.label });
  if (all.length === 0) {
    svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, 'no points yet'));
    return h('div', null, svg);
  }
  const t0 = Math.min(...all.map((p) => p[0])); const t1 = Math.max(...all.map((p) => p[0]), t0 + 1000);
  const top = opts.max !== undefined ? opts.max : niceMax(Math.max(...all.map((p) => p[1])));
  const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / top) * (H - T - B);
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    svg.append(s('line', { class: 'grid-line', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    svg.append(s('text', { x: L - 6, y: y(v) + 3, 'text-anchor': 'end' }, opts.format ? opts.format(v) : Math.round(v)));
  }
  svg.append(s('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
  svg.append(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
  const clock = (t) => new Date(t).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  svg.append(s('text', { x: L, y: H - 6 }, clock(t0)));
  svg.append(s('text', { x: W - R, y: H - 6, 'text-anchor': 'end' }, clock(t1)));
  series.forEach((serie, i) => {
    if (!serie.values.length) return;
    const d = serie.values.map((p, j) => (j ? 'L' : 'M') + x(p[0]).toFixed(1) + ' ' + y(p[1]).toFixed(1)).join(' ');
    svg.append(s('path', { class: 'line s' + i, d }));
    if (serie.values.length <= 40 && !serie.dots) {
      serie.values.forEach((p) => svg.append(s('circle', { class: 'point s' + i, cx: x(p[0]), cy: y(p[1]), r: 2.5 })));
    }
    (serie.dots || []).forEach((dot) => svg.append(s('circle', { class: 'dot ' + dot.cls, cx: x(dot.t), cy: y(dot.v), r: 3 }, s('title', null, dot.title))));
  });
  const legend = h('div', { class: 'legend' }, series.map((serie, i) => h('span', null, h('i', { class: 's' + i }), serie.name)));
  return h('div', null, svg, legend);
}

// ------------------------------------------------------------------ pages

async function overview() {
  const o = await api('/overview');
  const main = [h('h1', null, 'Overview'), h('p', { class: 'sub' }, `${o.tableCount} table(s) watched · policy ${o.policy}`)];
  main.push(h('div', { class: 'cards' },
    card('tables', int(o.tableCount), '', 'card-tables'),
    card('critical health', int(o.byHealth.critical), o.byHealth.critical ? 'crit' : ''),
    card('poor health', int(o.byHealth.poor), o.byHealth.poor ? 'poor' : ''),
    card('good health', int(o.byHealth.good), 'good'),
    card('due for optimizing', int(o.due)),
    card('running processes', int(o.running.length)),
    card('tasks queued / running', `${o.pendingTasks} / ${o.leasedTasks}`),
    card('workers · slots', `${o.workers} · ${o.workerSlots}`)));
  const alerts = o.alerts.length
    ? o.alerts.map((a) => h('div', { class: 'alert ' + a.severity }, badge(a.severity), h('div', null,
      h('strong', null, a.kind), a.subject ? [' · ', a.subject.includes('.') && !a.subject.includes('/') ? h('a', { href: '#/table/' + tablePath(a.subject) }, a.subject) : a.subject] : null,
      h('div', null, a.message), h('span', { class: 'tag' }, time(a.at)))))
    : [h('p', { class: 'empty', id: 'no-alerts' }, 'No alerts: integrity checks, catalogs, state store and policy are fine.')];
  main.push(h('div', { class: 'grid cols-2' },
    panel('Alerts', h('div', { id: 'alerts' }, alerts)),
    panel('Tables by state', table(['state', 'tables'], Object.entries(o.byStatus).map(([k, v]) =>
      h('tr', null, h('td', null, badge(k)), num(int(v))))),
    h('p', { class: 'muted' }, `${o.paused} paused`))));
  main.push(panel('Running processes', table(['table', 'process', 'type', 'trigger', 'partitions', 'tasks', 'running for'],
    o.running.map((p) => h('tr', null,
      h('td', null, h('a', { href: '#/table/' + tablePath(qualified(p)) }, qualified(p))),
      h('td', null, h('code', null, p.processId)), h('td', null, p.type), h('td', null, p.trigger),
      num(p.partitions), num(p.tasks), h('td', null, between(p.createdAt)))), 'No process runs now.')));
  main.push(h('div', { class: 'grid cols-2' },
    panel('Groups', groupsTable(o.groups)),
    panel('Windows', table(['window', 'time zone', 'now', 'closes', 'next opening'],
      o.windows.map((w) => h('tr', null, h('td', null, w.name), h('td', null, w.timeZone),
        h('td', null, w.open ? badge('open', 'good') : badge('closed', 'writer')),
        h('td', null, w.open ? time(w.closesAt) : '–'), h('td', null, time(w.nextOpening)))),
      'No windows: every kind of work may start at any time.'))));
  main.push(panel('Catalogs', table(['catalog', 'type', 'tables', 'listed', 'problem'],
    o.catalogs.map((c) => h('tr', null, h('td', null, c.name), h('td', null, c.type), num(int(c.tables)),
      h('td', null, time(c.listedAt)), h('td', null, c.error ? badge('unreachable', 'critical') : badge('ok', 'good'), ' ', c.error || ''))))));
  return main;
}

function groupsTable(groups) {
  return table(['group', 'capacity', 'workers', 'slots', 'tasks waiting'], groups.map((g) => h('tr', null,
    h('td', null, g.group === '*' ? 'any group (*)' : g.group), num(g.capacity ? g.capacity + ' processes' : '–'),
    num(g.workers), num(g.slots), num(g.backlog))));
}

const TABLE_COLUMNS = [
  ['name', 'table', (t) => t.name],
  ['health', 'health', (t) => t.health],
  ['status', 'state', (t) => t.status],
  ['dataFiles', 'data files', (t) => t.dataFiles],
  ['equalityDeleteFiles', 'eq. deletes', (t) => t.equalityDeleteFiles],
  ['positionDeleteFiles', 'pos. deletes', (t) => t.positionDeleteFiles],
  ['totalBytes', 'size', (t) => t.summary.totalBytes],
  ['avg', 'avg data file', (t) => t.summary.averageDataFileBytes],
  ['records', 'records', (t) => t.summary.records],
  ['lastOptimizedAt', 'last optimized', (t) => (t.line && t.line.lastOptimizedAt ? Date.parse(t.line.lastOptimizedAt) : 0)],
  ['lag', 'due for', (t) => (t.line ? t.line.lagSeconds : 0)],
  ['rule', 'policy rule', (t) => (t.line ? t.line.rule : '')],
];

async function tables() {
  const [list, lines] = await Promise.all([api('/tables'), api('/overview/tables')]);
  const byName = new Map(lines.map((l) => [l.table, l]));
  const rows = list.map((t) => Object.assign({}, t, { name: qualified(t), line: byName.get(qualified(t)) }));
  const f = ui.tables;
  const shown = rows.filter((t) => (!f.filter || t.name.toLowerCase().includes(f.filter.toLowerCase()))
    && (!f.status || t.status === f.status) && (!f.health || healthClass(t.health) === f.health));
  const column = TABLE_COLUMNS.find((c) => c[0] === f.sort) || TABLE_COLUMNS[1];
  shown.sort((a, b) => {
    const x = column[2](a); const y = column[2](b);
    const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
    return (f.asc ? c : -c) || a.name.localeCompare(b.name);
  });
  const filter = h('input', { id: 'filter', type: 'search', placeholder: 'filter by name', value: f.filter,
    oninput: (e) => { f.filter = e.target.value; rerender(); } });
  const select = (id, key, options) => {
    const el = h('select', { id, onchange: (e) => { f[key] = e.target.value; rerender(); } },
      options.map(([v, label]) => h('option', { value: v }, label)));
    el.value = f[key];
    return el;
  };
  const numeric = ['dataFiles', 'equalityDeleteFiles', 'positionDeleteFiles', 'totalBytes', 'avg', 'records'];
  const headers = TABLE_COLUMNS.map(([key, label]) => h('th', {
    class: 'sortable' + (numeric.includes(key) ? ' num' : '') + (f.sort === key ? ' sorted' + (f.asc ? ' asc' : '') : ''), 'data-sort': key,
    onclick: () => { if (f.sort === key) f.asc = !f.asc; else { f.sort = key; f.asc = key === 'name' || key === 'health' || key === 'rule'; } rerender(); },
  }, label));
  const body = shown.map((t) => h('tr', { class: 'clickable', 'data-table': t.name, onclick: () => { location.hash = '#/table/' + tablePath(t.name); } },
    h('td', null, h('a', { href: '#/table/' + tablePath(t.name) }, t.name), t.paused ? [' ', badge('paused')] : null),
    h('td', null, health(t.health)), h('td', null, badge(t.status)),
    num(int(t.dataFiles)), num(int(t.equalityDeleteFiles)), num(int(t.positionDeleteFiles)),
    num(bytes(t.summary.totalBytes)), num(bytes(t.summary.averageDataFileBytes)), num(int(t.summary.records)),
    h('td', null, t.line && t.line.lastOptimizedAt ? [time(t.line.lastOptimizedAt), ' ', h('span', { class: 'tag' }, t.line.lastOptimizingType)] : '–'),
    h('td', null, t.line && t.line.lagSeconds >= 1 ? duration(t.line.lagSeconds) : '–'),
    h('td', null, t.line ? t.line.rule : '–')));
  return [h('h1', null, 'Tables'),
    h('p', { class: 'sub' }, `${shown.length} of ${rows.length} table(s)`),
    panel(null, h('div', { class: 'row' }, filter,
      select('status-filter', 'status', [['', 'any state'], ...['idle', 'pending', 'planning', 'optimizing', 'committing', 'parked'].map((x) => [x, x])]),
      select('health-filter', 'health', [['', 'any health'], ['critical', 'critical (< 40)'], ['poor', 'poor (40–69)'], ['good', 'good (≥ 70)']])),
    h('div', { class: 'scroll' }, rows.length ? h('table', { id: 'tables' }, h('thead', null, h('tr', null, headers)), h('tbody', null, body))
      : h('p', { class: 'empty' }, 'No table is watched yet. The overview says why and how to point the server at your catalog.')))];
}

async function tablePage(catalog, namespace, name) {
  const full = `${catalog}.${namespace}.${name}`;
  const path = tablePath(full);
  const [detail, policy, partitions, snapshots, history] = await Promise.all([
    api(`/tables/${path}?limit=10`), api(`/policies/tables/${path}`), api(`/tables/${path}/partitions?limit=50`),
    api(`/tables/${path}/snapshots?limit=50`), api(`/tables/${path}/history`), refreshOpenProcesses()]);
  const t = detail.table;
  const out = [h('div', { class: 'spread' }, h('h1', { id: 'table-name' }, full),
    h('div', { class: 'row' }, health(t.health), h('span', { id: 'table-status' }, badge(t.status)), t.paused ? h('span', { id: 'table-paused' }, badge('paused')) : null)),
  h('p', { class: 'sub' }, t.reason)];
  out.push(h('div', { class: 'cards' },
    card('data files', int(t.dataFiles)), card('equality-delete files', int(t.equalityDeleteFiles)),
    card('position-delete files', int(t.positionDeleteFiles)), card('total size', bytes(t.summary.totalBytes)),
    card('average data file', bytes(t.summary.averageDataFileBytes)), card('records', int(t.summary.records)),
    card('snapshots', int(t.summary.snapshots)), card('manifests', int(t.summary.manifests))));

  // Actions
  const type = h('select', { id: 'optimize-type' }, ['minor', 'major', 'full'].map((x) => h('option', { value: x }, x)));
  const result = ui.result[full];
  out.push(panel('Actions',
    h('div', { class: 'row' }, type,
      h('button', { id: 'action-optimize', class: 'primary', onclick: () => action(full, 'optimize', '?type=' + type.value, 'Optimize (' + type.value + ')') }, 'Optimize now'),
      h('button', { id: 'action-pause', onclick: () => action(full, 'pause', '', 'Pause') }, 'Pause'),
      h('button', { id: 'action-resume', onclick: () => action(full, 'resume', '', 'Resume') }, 'Resume'),
      h('button', { id: 'action-cancel', class: 'danger', onclick: () => action(full, 'cancel', '', 'Cancel the running process of') }, 'Cancel process'),
      h('span', { class: 'muted' }, token() ? 'with your admin token' : 'no admin token set: the server refuses actions')),
    result ? h('div', { id: 'action-result', class: 'result ' + (result.ok ? 'ok' : 'error') }, result.text) : null));

  // Charts
  const pts = history.points.map((p) => Object.assign({ t: Date.parse(p.at) }, p));
  const snaps = snapshots.slice().reverse();
  out.push(h('div', { class: 'grid cols-3' },
    panel('Files over time (snapshots)', lineChart([
      { name: 'data files', values: snaps.map((x) => [Date.parse(x.committedAt), x.totalDataFiles]),
        dots: snaps.map((x) => ({ t: Date.parse(x.committedAt), v: x.totalDataFiles, cls: x.committer, title: `${x.committer} · ${x.operation}` })) },
      { name: 'delete files', values: snaps.map((x) => [Date.parse(x.committedAt), x.totalDeleteFiles]) }], { label: 'files per snapshot' }),
    h('p', { class: 'tag' }, 'From the retained snapshots\' summaries; dots: blue Firn, grey writer.')),
    panel('Delete files (evaluations)', lineChart([
      { name: 'equality', values: pts.map((p) => [p.t, p.equalityDeleteFiles]) },
      { name: 'position', values: pts.map((p) => [p.t, p.positionDeleteFiles]) }], { label: 'delete files' })),
    panel('Health (evaluations)', lineChart([{ name: 'health', values: pts.map((p) => [p.t, p.health]) }], { label: 'health', max: 100 }),
      h('p', { class: 'tag' }, history.kept ? `Evaluations since the server started (kept in its memory only): ${pts.length}.` : 'No history is kept for this table: the server keeps it for the first metrics.tableSeriesLimit tables.'))));

  // Processes
  out.push(panel('Processes', table(['process', 'type', 'trigger', 'status', 'started', 'took', 'groups', 'rewritten', 'written', 'message'],
    detail.processes.flatMap((p) => {
      const open = ui.processOpen[p.processId];
      const row = h('tr', { class: 'clickable process', 'data-process': p.processId, onclick: () => toggleProcess(p.processId) },
        h('td', null, h('code', null, p.processId)), h('td', null, p.type), h('td', null, p.trigger), h('td', null, badge(p.status)),
        h('td', null, time(p.createdAt)), h('td', null, between(p.createdAt, p.finishedAt)),
        num(`${p.committedGroups}/${p.partitions}` + (p.failedGroups ? ` (${p.failedGroups} failed)` : '')),
        num(bytes(p.rewriteBytes)), num(bytes(p.bytesWritten)), h('td', null, p.message));
      return open ? [row, h('tr', null, h('td', { colspan: 10 }, tasksTable(open)))] : [row];
    }), 'No process yet.')));

  // Plan, policy
  const plan = ui.plan[full];
  out.push(h('div', { class: 'grid cols-2' },
    panel('Dry-run plan', h('div', { class: 'row' },
      h('button', { id: 'plan-run', onclick: async () => { try { ui.plan[full] = await api(`/tables/${path}/plan`); } catch (e) { ui.plan[full] = { error: e.message }; } rerender(); } }, plan ? 'Plan again' : 'Plan now (reads the table, changes nothing)')),
    plan ? planView(plan) : h('p', { class: 'muted' }, 'What would be optimized now, per partition, and why.')),
    panel('Effective policy', policyView(policy))));

  // Partitions, snapshots
  out.push(panel(`Partitions (${partitions.partitions}${partitions.partitions > partitions.shown.length ? ', most delete files first, ' + partitions.shown.length + ' shown' : ''})`,
    table(['partition', 'spec', 'data files', 'size', 'records', 'eq. delete files', 'eq. deletes', 'pos. delete files', 'pos. deletes', 'updated'],
      partitions.shown.map((p) => h('tr', null, h('td', null, p.partition), num(p.specId), num(int(p.dataFiles)), num(bytes(p.dataBytes)), num(int(p.records)),
        num(int(p.equalityDeleteFiles)), num(int(p.equalityDeleteRecords)), num(int(p.positionDeleteFiles)), num(int(p.positionDeleteRecords)), h('td', null, time(p.lastUpdatedAt)))),
      'No partitions: the table has no data yet.')));
  out.push(panel('Snapshot timeline (newest first)', table(['committed', 'by', 'operation', 'snapshot', 'data files ±', 'delete files ±', 'data files', 'delete files', 'records', 'size'],
    snapshots.map((x) => h('tr', { class: 'snapshot ' + x.committer },
      h('td', null, time(x.committedAt)), h('td', null, badge(x.committer === 'firn' ? 'Firn ' + (x.optimizingType || '') : 'writer', x.committer), x.processId ? [' ', h('code', { class: 'tag' }, x.processId)] : null),
      h('td', null, x.operation || '–'), h('td', null, h('code', null, String(x.snapshotId))),
      num(`+${x.addedDataFiles} −${x.removedDataFiles}`), num(`+${x.addedDeleteFiles} −${x.removedDeleteFiles}`),
      num(int(x.totalDataFiles)), num(int(x.totalDeleteFiles)), num(int(x.totalRecords)), num(bytes(x.totalBytes)))), 'No snapshots.')));
  return out;
}

// An open process is read again on every refresh: its tasks are added while it plans and change
// status while it runs. One that cannot be read keeps what was last shown.
function refreshOpenProcesses() {
  return Promise.all(Object.keys(ui.processOpen).map(async (id) => {
    try {
      const detail = await api('/processes/' + encodeURIComponent(id));
      if (ui.processOpen[id]) ui.processOpen[id] = detail; // unless closed meanwhile
    } catch (e) { /* shown as it was */ }
  }));
}

async function toggleProcess(id) {
  if (ui.processOpen[id]) delete ui.processOpen[id];
  else ui.processOpen[id] = await api('/processes/' + encodeURIComponent(id));
  rerender();
}

function tasksTable(detail) {
  return table(['task', 'partition', 'status', 'attempts', 'worker', 'started', 'took', 'files', 'rows read', 'rows written', 'message'],
    detail.tasks.map((k) => h('tr', { class: 'task' }, num(k.taskNumber), h('td', null, k.partition), h('td', null, badge(k.status)), num(k.attempts),
      h('td', null, k.workerId || '–'), h('td', null, time(k.startedAt)), h('td', null, k.startedAt ? between(k.startedAt, k.finishedAt) : '–'),
      num(`${k.rewriteFiles} + ${k.convertFiles}`), num(int(k.rowsRead)), num(int(k.rowsWritten)), h('td', null, k.message))), 'No tasks.');
}

function planView(plan) {
  if (plan.error) return h('div', { class: 'result error' }, plan.error);
  return h('div', { id: 'plan' },
    h('p', null, h('strong', null, plan.type), ` · ${plan.tasks} task(s), ${int(plan.rewriteFiles)} file(s) (${bytes(plan.rewriteBytes)}) to rewrite, ${int(plan.convertFiles)} to convert`, plan.note ? ' · ' + plan.note : ''),
    table(['partition', 'type', 'reason', 'tasks', 'rewrite', 'convert'], plan.partitions.map((p) => h('tr', null,
      h('td', null, p.partition), h('td', null, p.type), h('td', null, p.reason), num(p.tasks),
      num(`${int(p.rewriteFiles)} (${bytes(p.rewriteBytes)})`), num(int(p.convertFiles)))), 'Nothing to optimize now.'));
}

function policyView(p) {
  return h('div', null, h('dl', { class: 'kv' },
    h('dt', null, 'rule'), h('dd', { id: 'policy-rule' }, p.rule + (p.priority ? ` (priority ${p.priority})` : '')),
    h('dt', null, 'group'), h('dd', null, `${p.group} (capacity ${p.groupCapacity})`),
    h('dt', null, 'target size'), h('dd', null, bytes(p.thresholds.targetSize)),
    h('dt', null, 'max delay'), h('dd', null, p.maxDelay),
    h('dt', null, 'on window close'), h('dd', null, p.onWindowClose)),
  table(['work', 'enabled', 'windows', 'may start now', 'why'], p.kinds.map((k) => h('tr', null, h('td', null, k.kind),
    h('td', null, k.enabled ? 'yes' : 'no'), h('td', null, k.windows.length ? k.windows.join(', ') : 'any time'),
    h('td', null, k.mayStart ? badge('yes', 'good') : badge('no', 'writer')), h('td', null, k.reason)))),
  h('details', null, h('summary', null, 'all thresholds'), h('pre', null, JSON.stringify(p.thresholds, null, 2))));
}

async function workers() {
  const [list, o] = await Promise.all([api('/workers'), api('/overview')]);
  return [h('h1', null, 'Workers & groups'), h('p', { class: 'sub' }, `${list.length} worker(s), ${o.workerSlots} slot(s)`),
    panel('Workers', table(['worker', 'name', 'group', 'engine', 'slots', 'running tasks', 'registered', 'last seen'],
      list.map((w) => h('tr', { class: 'worker' }, h('td', null, h('code', null, w.workerId)), h('td', null, w.name), h('td', null, w.group),
        h('td', null, `${w.engine} ${w.engineVersion}`), num(w.slots), num(w.runningTasks), h('td', null, time(w.registeredAt)), h('td', null, time(w.lastSeenAt)))),
      'No worker registered.')),
    panel('Groups', groupsTable(o.groups), h('p', { class: 'tag' }, 'capacity: processes of the group at once (policy); workers of group * serve every group.'))];
}

async function policies() {
  const p = await api('/policies');
  const reload = p.lastReload;
  return [h('h1', null, 'Policies'), h('p', { class: 'sub' }, p.path ? `Loaded from ${p.path}` : 'The built-in defaults (policies.path is empty).'),
    h('div', { class: 'grid cols-2' },
      panel('Policy in force', h('dl', { class: 'kv', id: 'policy' },
        h('dt', null, 'name'), h('dd', null, p.name), h('dt', null, 'files'), h('dd', null, p.path || 'built in'),
        h('dt', null, 'in force since'), h('dd', null, time(p.loadedAt)),
        h('dt', null, 'last reload'), h('dd', null, reload ? [time(reload.at), ' ', badge(reload.outcome.toLowerCase(), reload.outcome === 'REJECTED' ? 'critical' : 'good')] : 'never (not reloadable)'),
        reload && reload.error ? [h('dt', null, 'error'), h('dd', { id: 'reload-error' }, reload.error)] : null)),
      panel('Groups', table(['group', 'capacity'], p.groups.map((g) => h('tr', null, h('td', null, g.name), num(g.capacity)))))),
    panel('Rules (first match by priority)', table(['rule', 'match', 'priority', 'group'], p.rules.map((r) => h('tr', null,
      h('td', null, r.name), h('td', null, h('code', null, r.match)), num(r.priority), h('td', null, r.group))), 'No rules: the defaults apply to every table.')),
    panel('Windows', table(['window', 'time zone', 'now', 'closes', 'next opening'], p.windows.map((w) => h('tr', null, h('td', null, w.name),
      h('td', null, w.timeZone), h('td', null, w.open ? badge('open', 'good') : badge('closed', 'writer')), h('td', null, w.open ? time(w.closesAt) : '–'), h('td', null, time(w.nextOpening)))), 'No windows.'))];
}

// ------------------------------------------------------------------ routing

const PAGES = { '': overview, tables, table: tablePage, workers, policies };

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map((p) => { try { return decodeURIComponent(p); } catch (e) { return p; } });
  const page = parts[0] in PAGES ? parts[0] : null;
  view.page = page;
  view.args = parts.slice(1);
  for (const a of document.querySelectorAll('#nav a')) {
    const target = a.getAttribute('data-page');
    a.classList.toggle('active', target === (page === '' ? 'overview' : page === 'table' ? 'tables' : page));
  }
  ui.processOpen = {};
  return render();
}

function rerender() { return render(); }

async function render() {
  const main = document.getElementById('main');
  if (document.getElementById('confirm').open) return;
  if (view.page === null) {
    main.replaceChildren(h('h1', null, 'Not found'), h('p', null, 'No console page at ', h('code', null, location.hash), '. ', h('a', { href: '#/' }, 'Overview')));
    return;
  }
  if (view.busy) { view.again = true; return; }
  view.busy = true;
  view.again = false;
  const focused = document.activeElement && document.activeElement.id;
  const caret = document.activeElement && document.activeElement.selectionStart;
  let scroll = window.scrollY;
  try {
    const content = await PAGES[view.page](...view.args);
    scroll = window.scrollY; // where the reader is now, not before the requests
    main.replaceChildren(...content);
    main.setAttribute('data-page', view.page || 'overview');
    document.getElementById('updated').textContent = 'Updated ' + new Date().toLocaleTimeString('en-GB');
  } catch (e) {
    main.replaceChildren(h('h1', null, 'Cannot show this page'),
      h('div', { class: 'result error', id: 'page-error' }, e.status ? `${e.status}: ${e.message}` : String(e.message || e)));
  } finally {
    view.busy = false;
  }
  if (focused) {
    const el = document.getElementById(focused);
    if (el) { el.focus(); if (caret !== undefined && caret !== null && el.setSelectionRange) el.setSelectionRange(caret, caret); }
  }
  window.scrollTo(0, scroll);
  if (view.again) render();
}

function start() {
  document.getElementById('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = document.getElementById('token');
    if (input.value) sessionStorage.setItem('firn.adminToken', input.value);
    input.value = '';
    showMode();
    render();
  });
  document.getElementById('token-clear').addEventListener('click', () => { sessionStorage.removeItem('firn.adminToken'); showMode(); render(); });
  window.addEventListener('hashchange', route);
  showMode();
  route();
  view.timer = setInterval(() => { if (!document.hidden) render(); }, REFRESH_MS);
}

document.addEventListener('DOMContentLoaded', start);
