// The Records tab: an agent's memory records with filters and hybrid search; a record opens its
// content, its versions and its provenance (the session and turn that wrote it, or the review).
// In a past view (`asOf`) the listing and the record answer as they stood at that instant.

import { useState } from "preact/hooks";
import { agentPath, get, getAll } from "./api.js";
import { byThen, past } from "./asof.js";
import { html } from "./html.js";
import { Actor } from "./memory.js";
import { ago, href, navigate, useLoad, useReveal, when } from "./util.js";
import { Empty, Loading, Problem } from "./widgets.js";

const BLANK = { query: "", kind: "", label: "", scope: "", status: "ACTIVE", pinned: "" };

// `topic=release, area=web` into the API's JSON object of exact label values.
function labelsParam(text) {
  const labels = {};
  for (const pair of text.split(",")) {
    const [name, ...value] = pair.split("=");
    if (name.trim() && value.length) labels[name.trim()] = value.join("=").trim();
  }
  return Object.keys(labels).length ? JSON.stringify(labels) : undefined;
}

export function RecordsTab({ agentId, rest, changed, asOf }) {
  const [form, setForm] = useState(BLANK);
  const [filters, setFilters] = useState(BLANK);
  const params = {
    query: filters.query,
    kind: filters.kind,
    labels: labelsParam(filters.label),
    scope: filters.scope,
    status: filters.status,
    pinned: filters.pinned,
    ...past(asOf),
  };
  const records = useLoad(
    () =>
      filters.query
        ? get(agentPath(agentId, "records"), { ...params, limit: 50 }).then((r) => r.records)
        : getAll(agentPath(agentId, "records"), "records", params),
    [agentId, JSON.stringify(filters), changed, asOf],
  );
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  const selected = rest || null;
  return html`<div class=${"split" + (selected ? " has-detail" : "")}>
    <section class="list-pane" aria-labelledby="records-title">
      <h2 id="records-title" class="sr-only">Records</h2>
      <form class="filters" role="search" onSubmit=${(e) => {
          e.preventDefault();
          setFilters(form);
        }}>
        <div class="field grow">
          <label for="record-query">Search records</label>
          <input id="record-query" type="search" placeholder="words or meaning" value=${form.query}
            onInput=${set("query")} />
        </div>
        <div class="field">
          <label for="record-kind">Kind</label>
          <input id="record-kind" placeholder="fact, preference" value=${form.kind} onInput=${set("kind")} />
        </div>
        <div class="field">
          <label for="record-labels">Labels</label>
          <input id="record-labels" placeholder="topic=release" value=${form.label} onInput=${set("label")} />
        </div>
        <div class="field">
          <label for="record-scope">Scope</label>
          <select id="record-scope" value=${form.scope} onChange=${set("scope")}>
            <option value="">any</option><option value="agent">agent</option><option value="session">session</option>
          </select>
        </div>
        <div class="field">
          <label for="record-status">Status</label>
          <select id="record-status" value=${form.status} onChange=${set("status")}>
            <option value="ACTIVE">active</option><option value="SUPERSEDED">superseded</option>
            <option value="DELETED">deleted</option><option value="EXPIRED">expired</option>
            <option value="PENDING">pending</option><option value="REJECTED">rejected</option>
            <option value="all">all</option>
          </select>
        </div>
        <div class="field">
          <label for="record-pinned">Pinned</label>
          <select id="record-pinned" value=${form.pinned} onChange=${set("pinned")}>
            <option value="">any</option><option value="true">pinned</option><option value="false">not pinned</option>
          </select>
        </div>
        <div class="field end"><button type="submit" class="primary">Apply</button></div>
      </form>
      ${filters.query && html`<p class="muted">Ranked by words, meaning and recency for “${filters.query}”.</p>`}
      <${Problem} error=${records.error} />
      ${records.loading && !records.data
        ? html`<${Loading} label="Loading records" />`
        : html`<div class="table-wrap">
            <table aria-label="Records">
              <thead><tr><th>Summary</th><th>Kind</th><th class="wide">Labels</th><th class="wide">Scope</th>
                <th>Status</th><th class="wide">Pinned</th><th class="wide">Updated</th></tr></thead>
              <tbody>
                ${(records.data || []).map(
                  (r) => html`<tr key=${r.id} class=${r.id === selected ? "selected" : ""}>
                    <td><a href=${href(`/agents/${agentId}/-/records/${r.id}`)}
                      aria-current=${r.id === selected ? "true" : undefined}>${r.summary}</a>
                      <div class="narrow muted">${r.scope}${r.pinned ? " · pinned" : ""}${" "}
                        <${Labels} labels=${r.labels} quiet=${true} /></div></td>
                    <td>${r.kind}</td>
                    <td class="wide"><${Labels} labels=${r.labels} /></td>
                    <td class="wide">${r.scope}</td>
                    <td><span class=${"status " + r.status}>${r.status.toLowerCase()}</span></td>
                    <td class="wide">${r.pinned ? "pinned" : ""}</td>
                    <td class="wide" title=${when(r.updatedAt)}>${ago(r.updatedAt)}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
            ${records.data && !records.data.length && html`<${Empty}>No record matches.</${Empty}>`}
          </div>`}
    </section>
    ${selected &&
    html`<${RecordDetail} key=${selected} agentId=${agentId} id=${selected} changed=${changed} asOf=${asOf}
      onClose=${() => navigate(`/agents/${agentId}/-/records`)} />`}
  </div>`;
}

const Labels = ({ labels, quiet }) => {
  const pairs = Object.entries(labels || {});
  if (!pairs.length) return quiet ? null : html`<span class="muted">none</span>`;
  return pairs.map(([name, value]) => html`<span class="chip" key=${name}>${name}: ${value}</span> `);
};

// The record as it stood at `asOf`: the listing's as-of read of this one id, any status (null
// when it was not written yet).
const recordThen = (agentId, id, asOf) =>
  get(agentPath(agentId, "records"), { ids: id, status: "all", asOf }).then(
    (page) => page.records[0] || null,
  );

function RecordDetail({ agentId, id, changed, asOf, onClose }) {
  const record = useLoad(
    () => (asOf ? recordThen(agentId, id, asOf) : get(agentPath(agentId, "records/" + id))),
    [agentId, id, changed, asOf],
  );
  const versions = useLoad(
    () =>
      getAll(agentPath(agentId, `records/${id}/versions`), "versions").then((all) =>
        all.filter((v) => byThen(v.at, asOf)),
      ),
    [agentId, id, changed, asOf],
  );
  const r = record.data;
  const ref = useReveal();
  return html`<section class="detail card" aria-labelledby="record-title" ref=${ref}>
    <div class="detail-head">
      <h2 id="record-title">${r ? r.summary : id}</h2>
      <button type="button" class="link" onClick=${onClose}>Close</button>
    </div>
    <${Problem} error=${record.error || versions.error} />
    ${record.loading && !r && html`<${Loading} label="Loading the record" />`}
    ${asOf && !record.loading && !record.error && !r &&
    html`<p class="notice">This record did not exist yet then.</p>`}
    ${r &&
    html`<dl class="facts">
        <dt>Id</dt><dd><code>${r.id}</code></dd>
        <dt>Kind</dt><dd>${r.kind}</dd>
        <dt>Scope</dt><dd>${r.scope}${r.sessionId && html` (session <code>${r.sessionId}</code>)`}</dd>
        <dt>Status</dt><dd><span class=${"status " + r.status}>${r.status.toLowerCase()}</span>
          ${r.replacedBy && html` by <a href=${href(`/agents/${agentId}/-/records/${r.replacedBy}`)}>${r.replacedBy}</a>`}</dd>
        ${r.proposal &&
        html`<dt>Proposes</dt><dd><${Proposes} agentId=${agentId} proposal=${r.proposal} /></dd>`}
        <dt>Pinned</dt><dd>${r.pinned ? "yes" : "no"}</dd>
        <dt>Labels</dt><dd><${Labels} labels=${r.labels} /></dd>
        <dt>Version</dt><dd>v${r.version} · ${when(r.updatedAt)}</dd>
      </dl>
      ${r.content && html`<h3>Content</h3><pre class="raw">${r.content}</pre>`}
      <h3>Provenance</h3>
      <${Provenance} agentId=${agentId} p=${r.provenance} />`}
    <h3>Versions</h3>
    <ol class="timeline" aria-label="Record versions, newest first">
      ${(versions.data || []).map(
        (v) => html`<li key=${v.record.version + v.operation}>
          <span class=${"op " + v.operation}>${v.operation}</span>
          <strong>v${v.record.version}</strong> ${v.record.summary}
          <span class=${"status " + v.record.status}>${v.record.status.toLowerCase()}</span>
          <span class="muted" title=${when(v.at)}>${ago(v.at)}</span>
          <div class="sub"><${Provenance} agentId=${agentId} p=${v.changedBy} compact=${true} /></div>
        </li>`,
      )}
    </ol>
  </section>`;
}

// Who wrote it: the agent in a session's turn, a post-turn review (execution
// `extraction:<turn>`), an app through the API, or a fork.
export function Provenance({ agentId, p, compact }) {
  if (!p) return null;
  const review = p.execution && p.execution.startsWith("extraction:");
  const turn =
    p.sessionId && p.turnId
      ? html`<a href=${href(`/agents/${agentId}/-/sessions/${p.sessionId}/${p.turnId}`)}>
          ${review ? "review of turn" : "turn"} <code>${p.turnId}</code></a>`
      : null;
  if (compact) {
    return html`<span><${Actor} actor=${p.actor} agentId=${agentId} />${turn && html` · `}${turn}</span>`;
  }
  return html`<dl class="facts">
    <dt>Written by</dt><dd><${Actor} actor=${p.actor} agentId=${agentId} />${p.manifestVersion ? ` (manifest v${p.manifestVersion})` : ""}</dd>
    ${review && html`<dt>Review</dt><dd>post-turn extraction</dd>`}
    ${turn && html`<dt>Session</dt><dd><code>${p.sessionId}</code></dd><dt>Turn</dt><dd>${turn}</dd>`}
    ${p.execution && !review && html`<dt>Execution</dt><dd><code>${p.execution}</code></dd>`}
    ${p.sources && p.sources.length > 0 &&
    html`<dt>Sources</dt><dd>${p.sources.map((s) => html`<code key=${s}>${s}</code> `)}</dd>`}
  </dl>`;
}

// What a review's write awaiting approval proposes: a new memory, or to replace or delete the
// memory `proposal.target` as it was at `targetVersion`. `target` (when read) is that memory as
// it is now, so a proposal whose target moved since says so before anyone approves it.
const ACTIONS = { add: "Add", replace: "Replace", delete: "Delete" };

export function Proposes({ agentId, proposal, target }) {
  const action = proposal.action;
  if (!proposal.target) return html`<span class=${"op " + action}>${ACTIONS[action] || action}</span> a new memory`;
  const moved =
    target && (target.status !== "ACTIVE" || target.version !== proposal.targetVersion);
  return html`<span class=${"op " + action}>${ACTIONS[action] || action}</span>${" "}
    <a href=${href(`/agents/${agentId}/-/records/${proposal.target}`)}>${target ? target.summary : proposal.target}</a>
    ${" "}<span class="muted">as it was at v${proposal.targetVersion}</span>
    ${moved &&
    html`<div class="moved">Changed since: now ${target.status.toLowerCase()} at v${target.version}.</div>`}
    ${target === null && html`<div class="moved">That memory is gone.</div>`}`;
}
