// The Sessions tab: sessions and their turns (status, who started them, the manifest version they
// ran, their post-turn review); a turn opens its history events, its tool executions and the
// memories it wrote; a search box ranks the session's kept history.

import { useState } from "preact/hooks";
import { agentPath, get, getAll } from "./api.js";
import { html } from "./html.js";
import { ago, href, navigate, pretty, useLoad, useReveal, when } from "./util.js";
import { Empty, Loading, Problem } from "./widgets.js";

export function SessionsTab({ agentId, rest, changed }) {
  const [sessionId, turnId] = rest ? rest.split("/") : [null, null];
  const sessions = useLoad(() => getAll(agentPath(agentId, "sessions"), "sessions"), [
    agentId,
    changed,
  ]);
  const newest = [...(sessions.data || [])].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  return html`<div class=${"split" + (sessionId ? " has-detail" : "")}>
    <section class="list-pane" aria-labelledby="sessions-title">
      <h2 id="sessions-title" class="sr-only">Sessions</h2>
      <${Problem} error=${sessions.error} />
      ${sessions.loading && !sessions.data
        ? html`<${Loading} label="Loading sessions" />`
        : html`<div class="table-wrap">
            <table aria-label="Sessions">
              <thead><tr><th>Session</th><th>Turns</th><th class="wide">Metadata</th><th>Started</th></tr></thead>
              <tbody>
                ${newest.map(
                  (s) => html`<tr key=${s.id} class=${s.id === sessionId ? "selected" : ""}>
                    <td><a href=${href(`/agents/${agentId}/-/sessions/${s.id}`)}
                      aria-current=${s.id === sessionId ? "true" : undefined}><code>${s.id}</code></a></td>
                    <td>${s.turns}</td>
                    <td class="wide">${Object.entries(s.metadata || {}).map(
                      ([k, v]) => html`<span class="chip" key=${k}>${k}: ${v}</span> `,
                    )}</td>
                    <td title=${when(s.createdAt)}>${ago(s.createdAt)}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
            ${sessions.data && !newest.length && html`<${Empty}>No sessions yet.</${Empty}>`}
          </div>`}
    </section>
    ${sessionId &&
    html`<${SessionDetail} key=${sessionId} agentId=${agentId} sessionId=${sessionId}
      turnId=${turnId} changed=${changed} />`}
  </div>`;
}

function SessionDetail({ agentId, sessionId, turnId, changed }) {
  const base = `sessions/${sessionId}`;
  const ref = useReveal();
  const turns = useLoad(() => getAll(agentPath(agentId, base + "/turns"), "turns"), [
    agentId,
    sessionId,
    changed,
  ]);
  return html`<section class="detail card" aria-labelledby="session-title" ref=${ref}>
    <div class="detail-head">
      <h2 id="session-title">Session <code>${sessionId}</code></h2>
      <button type="button" class="link" onClick=${() => navigate(`/agents/${agentId}/-/sessions`)}>Close</button>
    </div>
    <${HistorySearch} agentId=${agentId} sessionId=${sessionId} changed=${changed} />
    <h3>Turns</h3>
    <${Problem} error=${turns.error} />
    ${turns.loading && !turns.data && html`<${Loading} label="Loading turns" />`}
    <div class="table-wrap">
      <table aria-label="Turns">
        <thead><tr><th>#</th><th>Status</th><th>Started by</th><th class="wide">Manifest</th><th>Review</th>
          <th class="wide">Started</th></tr></thead>
        <tbody>
          ${(turns.data || []).map(
            (t) => html`<tr key=${t.id} class=${t.id === turnId ? "selected" : ""}>
              <td><a href=${href(`/agents/${agentId}/-/sessions/${sessionId}/${t.id}`)}
                aria-label=${`Turn ${t.sequence}`} aria-current=${t.id === turnId ? "true" : undefined}>
                turn ${t.sequence}</a>${t.preview ? html` <span class="chip">preview</span>` : ""}</td>
              <td><span class=${"status " + t.status}>${t.status.replace("_", " ")}</span></td>
              <td>${t.startedBy}</td>
              <td class="wide">v${t.manifestVersion}</td>
              <td>${t.extraction ? t.extraction.status : html`<span class="muted">—</span>`}</td>
              <td class="wide" title=${when(t.createdAt)}>${ago(t.createdAt)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${turnId &&
    html`<${TurnDetail} key=${turnId} agentId=${agentId} sessionId=${sessionId} turnId=${turnId}
      changed=${changed} />`}
  </section>`;
}

// The session's kept events (committed turns), ranked by the service's history search
// (GET /v1/agents/{id}/-/history): words and meaning, as the agent's search_history ranks them.
function HistorySearch({ agentId, sessionId, changed }) {
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const events = useLoad(
    () =>
      query
        ? get(agentPath(agentId, "history"), { query, sessionId, limit: 50 }).then((r) => r.events)
        : Promise.resolve(null),
    [agentId, sessionId, query, changed],
  );
  // A result's text starts with its heading (`turn 3, user`): the list shows the turn itself.
  const found = (events.data || []).map((e) => ({ ...e, text: e.text.split("\n").slice(1).join("\n") }));
  return html`<div class="history-search">
    <form class="searchbar" role="search" onSubmit=${(e) => {
        e.preventDefault();
        setQuery(text.trim());
      }}>
      <label for="history-search" class="sr-only">Search this session's history</label>
      <input id="history-search" type="search" placeholder="Search this session's history" value=${text}
        onInput=${(e) => {
          setText(e.target.value);
          if (!e.target.value) setQuery("");
        }} />
      <button type="submit">Search</button>
    </form>
    <${Problem} error=${events.error} />
    ${query && events.loading && html`<${Loading} label="Searching" />`}
    ${query && events.data &&
    html`<p class="muted" role="status">${found.length} event${found.length === 1 ? "" : "s"} found, best first.</p>
      <ol class="events" aria-label="History search results">
        ${found.map(
          (e) => html`<li key=${e.id}><${Event} event=${e} />
            <a href=${href(`/agents/${agentId}/-/sessions/${sessionId}/${e.turnId}`)}>turn ${e.turn}</a></li>`,
        )}
      </ol>`}
  </div>`;
}

const Event = ({ event }) => html`<div class=${"event " + event.role}>
  <span class="role">${event.role}${event.toolName ? ` · ${event.toolName}` : ""}</span>
  <span class="said">${event.text}</span>
  ${event.toolCalls && event.toolCalls.length > 0 &&
  html`<span class="muted"> calls ${event.toolCalls.map((c) => c.name).join(", ")}</span>`}
</div>`;

function TurnDetail({ agentId, sessionId, turnId, changed }) {
  const base = `sessions/${sessionId}`;
  const turn = useLoad(() => get(agentPath(agentId, `${base}/turns/${turnId}`)), [
    agentId,
    turnId,
    changed,
  ]);
  const t = turn.data;
  const events = useLoad(
    () =>
      t
        ? getAll(agentPath(agentId, base + "/history"), "events", {
            fromTurn: t.sequence,
            toTurn: t.sequence,
          })
        : Promise.resolve([]),
    [agentId, t && t.sequence, t && t.status],
  );
  const files = useLoad(
    () =>
      getAll(agentPath(agentId, "memory-versions"), "versions").then((all) =>
        all.filter((v) => v.turnId === turnId),
      ),
    [agentId, turnId, changed],
  );
  const x = t && t.extraction;
  return html`<section class="turn" aria-labelledby="turn-title">
    <h3 id="turn-title">Turn ${t ? t.sequence : ""} <code>${turnId}</code></h3>
    <${Problem} error=${turn.error || events.error || files.error} />
    ${turn.loading && !t && html`<${Loading} label="Loading the turn" />`}
    ${t &&
    html`<dl class="facts">
        <dt>Status</dt><dd><span class=${"status " + t.status}>${t.status.replace("_", " ")}</span>${t.preview ? " (preview)" : ""}</dd>
        <dt>Started by</dt><dd>${t.startedBy}${t.triggerRunId ? ` (run ${t.triggerRunId})` : ""}</dd>
        <dt>Manifest</dt><dd>v${t.manifestVersion}</dd>
        <dt>Began</dt><dd>${when(t.createdAt)}</dd>
        ${t.endedAt && html`<dt>Ended</dt><dd>${when(t.endedAt)}</dd>`}
        ${t.replayOf && html`<dt>Replay of</dt><dd><code>${t.replayOf}</code></dd>`}
        <dt>Review</dt><dd>${x
          ? html`${x.status} · turns ${x.fromTurn + 1}–${x.through} · ${x.messages} messages ·
              added ${x.added}, replaced ${x.replaced}, deleted ${x.deleted}, skipped ${x.skipped}
              ${x.error && html`<div class="problem">${x.error}</div>`}`
          : "none"}</dd>
      </dl>
      <h4>History events</h4>
      ${events.data && !events.data.length &&
      html`<${Empty}>No kept events${t.status === "open" ? " (kept when the turn commits)" : ""}.</${Empty}>`}
      <ol class="events" aria-label="History events of this turn">
        ${(events.data || []).map((e) => html`<li key=${e.id}><${Event} event=${e} /></li>`)}
      </ol>
      <h4>Executions</h4>
      ${!t.executions.length && html`<${Empty}>No tool calls.</${Empty}>`}
      <ol class="executions" aria-label="Executions">
        ${t.executions.map(
          (e) => html`<li key=${e.id}>
            <details>
              <summary><strong>${e.tool}</strong> ${e.input && e.input.command ? e.input.command : ""}
                ${e.error ? html`<span class="status failed">refused</span>` : html`<span class="status ACTIVE">ok</span>`}
                <span class="muted">${e.caller && e.caller.role} · ${ago(e.createdAt)}</span></summary>
              <h5>Input</h5><pre class="raw">${pretty(e.input)}</pre>
              <h5>${e.error ? "Error" : "Output"}</h5><pre class="raw">${pretty(e.error || e.output)}</pre>
            </details>
          </li>`,
        )}
      </ol>
      <h4>Memories it wrote</h4>
      ${!t.memories.length && !(files.data || []).length && html`<${Empty}>None.</${Empty}>`}
      ${files.loading && !files.data && html`<${Loading} label="Loading the memories it wrote" />`}
      <ul class="plain" aria-label="Memories this turn wrote">
        ${t.memories.map(
          (r) => html`<li key=${r.id}><span class="chip">record</span>${" "}
            <a href=${href(`/agents/${agentId}/-/records/${r.id}`)}>${r.summary}</a>${" "}
            <span class=${"status " + r.status}>${r.status.toLowerCase()}</span>${r.preview ? " (preview)" : ""}</li>`,
        )}
        ${(files.data || []).map(
          (v) => html`<li key=${v.id}><span class="chip">file</span>${" "}
            <a href=${href(`/agents/${agentId}/-/memory/${v.path.replace(/^\/memories\//, "")}`)}>${v.path}</a>
            ${" "}${v.operation} → v${v.version}</li>`,
        )}
      </ul>`}
  </section>`;
}
