// The Pending tab: a review's writes waiting for an app's decision (the manifest's
// `harness.memory.extraction.approval: "review"`), each with what it proposes, the memory it
// would change, and its evidence, and Approve and Reject. The service applies an approval
// against the memory as it is now and may refuse it (409); the reason is said here in words.

import { useState } from "preact/hooks";
import { agentPath, get, getAll, request } from "./api.js";
import { past } from "./asof.js";
import { html } from "./html.js";
import { Proposes, Provenance } from "./records.js";
import { ago, href, useLoad, when } from "./util.js";
import { Empty, Loading, Problem } from "./widgets.js";

export const PENDING = { status: "PENDING" };

// The memories the proposals would change, as they are now (any status), by id.
async function targetsOf(agentId, records) {
  const ids = [...new Set(records.map((r) => r.proposal && r.proposal.target).filter(Boolean))];
  const found = {};
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    const page = await get(agentPath(agentId, "records"), { ids: chunk.join(","), status: "all", limit: 100 });
    for (const record of page.records) found[record.id] = record;
    for (const id of chunk) if (!(id in found)) found[id] = null; // gone
  }
  return found;
}

// A refused decision in words: what happened and what to do.
export function refusal(problem) {
  const extra = (problem && problem.body && problem.body.error) || {};
  const words = {
    proposal_stale:
      "The memory it would change has changed since; review again. It stays pending: reject it, and a later review decides against the memory as it is now.",
    proposal_restates:
      "An active memory already says this, so approving it would keep the fact twice. Reject it, or delete that memory first.",
    proposal_forbidden:
      "This token is the agent's own, and an agent cannot approve or reject its own proposals. Sign in with an app's token.",
    insufficient_scope: "This token may not decide proposals: that needs an app's token with agents:write.",
    record_not_pending: `It was decided meanwhile${extra.status ? ` (it is ${String(extra.status).toLowerCase()} now)` : ""}.`,
    record_not_found: "This proposal no longer exists.",
    record_busy: "Its memory was changing at that moment; try again.",
  }[problem.code];
  return { code: problem.code || "error", message: words || problem.message, restated: extra.restated };
}

export function PendingTab({ agentId, changed, asOf, onChanged }) {
  const pending = useLoad(async () => {
    const records = await getAll(agentPath(agentId, "records"), "records", { ...PENDING, ...past(asOf) });
    return { records, targets: await targetsOf(agentId, records) };
  }, [agentId, changed, asOf]);
  const [notice, setNotice] = useState("");
  const records = (pending.data && pending.data.records) || [];
  const decided = (text) => {
    setNotice(text);
    pending.reload();
    onChanged(); // the other tabs (Records) read again too
  };
  return html`<section aria-labelledby="pending-title">
    <h2 id="pending-title">Pending writes</h2>
    <p class="muted">
      With <code>harness.memory.extraction.approval: "review"</code>, a review's writes wait here
      and are no memory yet. Approve applies one against the memory as it is now; Reject keeps it,
      refused, and applies nothing.
    </p>
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    <${Problem} error=${pending.error} />
    ${pending.loading && !pending.data && html`<${Loading} label="Loading pending writes" />`}
    ${pending.data && !records.length &&
    html`<${Empty}>${asOf ? "Nothing was waiting for approval then." : "Nothing is waiting for approval."}</${Empty}>`}
    <ul class="pending" aria-label="Pending writes">
      ${records.map(
        (r) => html`<li key=${r.id}>
          <${PendingItem} agentId=${agentId} record=${r} target=${r.proposal && pending.data.targets[r.proposal.target]}
            readOnly=${Boolean(asOf)} onDecided=${decided} />
        </li>`,
      )}
    </ul>
  </section>`;
}

function PendingItem({ agentId, record, target, readOnly, onDecided }) {
  const [busy, setBusy] = useState("");
  const [error, setError] = useState(null);
  const title = `pending-${record.id}`;
  const decide = async (verb) => {
    setBusy(verb);
    setError(null);
    try {
      await request("POST", agentPath(agentId, `records/${record.id}/${verb}`));
      onDecided(`${verb === "approve" ? "Approved" : "Rejected"}: ${record.summary}`);
    } catch (problem) {
      if (problem.code === "record_not_pending" || problem.code === "record_not_found") {
        onDecided(`${record.summary}: ${refusal(problem).message}`); // gone from this list
      } else {
        setError(refusal(problem));
      }
    } finally {
      setBusy("");
    }
  };
  const p = record.provenance || {};
  return html`<article class="card proposal" aria-labelledby=${title}>
    <h3 id=${title}>${record.summary}</h3>
    ${record.content && html`<pre class="raw" aria-label="Content">${record.content}</pre>`}
    <dl class="facts">
      <dt>Proposes</dt>
      <dd>${record.proposal
        ? html`<${Proposes} agentId=${agentId} proposal=${record.proposal} target=${target} />`
        : "a new memory"}</dd>
      <dt>Kind</dt><dd>${record.kind} · ${record.scope}${record.sessionId ? html` (session <code>${record.sessionId}</code>)` : ""}</dd>
      ${Object.keys(record.labels || {}).length > 0 &&
      html`<dt>Labels</dt><dd>${Object.entries(record.labels).map(([k, v]) => html`<span class="chip" key=${k}>${k}: ${v}</span> `)}</dd>`}
      <dt>Proposed</dt><dd title=${when(record.createdAt)}>${ago(record.createdAt)}</dd>
      <dt>Record</dt><dd><a href=${href(`/agents/${agentId}/-/records/${record.id}`)}><code>${record.id}</code></a></dd>
    </dl>
    <h4>Evidence</h4>
    <${Provenance} agentId=${agentId} p=${p} />
    ${p.sessionId && p.turnId && html`<${Messages} agentId=${agentId} p=${p} />`}
    ${error &&
    html`<p class="problem" role="alert"><code>${error.code}</code> ${error.message}
      ${error.restated && html` <a href=${href(`/agents/${agentId}/-/records/${error.restated}`)}>See the memory it restates</a>.`}</p>`}
    ${!readOnly &&
    html`<div class="actions">
      <button type="button" disabled=${Boolean(busy)} aria-describedby=${title}
        onClick=${() => decide("reject")}>${busy === "reject" ? "Rejecting…" : "Reject"}</button>
      <button type="button" class="primary" disabled=${Boolean(busy)} aria-describedby=${title}
        onClick=${() => decide("approve")}>${busy === "approve" ? "Approving…" : "Approve"}</button>
    </div>`}
  </article>`;
}

// The messages the review read, loaded when opened: those the record cites first, else the
// whole turn's.
function Messages({ agentId, p }) {
  const [open, setOpen] = useState(false);
  const base = `sessions/${p.sessionId}`;
  const events = useLoad(async () => {
    if (!open) return null;
    const turn = await get(agentPath(agentId, `${base}/turns/${p.turnId}`));
    const all = await getAll(agentPath(agentId, base + "/history"), "events", {
      fromTurn: turn.sequence,
      toTurn: turn.sequence,
    });
    const cited = all.filter((e) => (p.sources || []).includes(e.id));
    return cited.length ? cited : all;
  }, [agentId, p.sessionId, p.turnId, open]);
  return html`<details onToggle=${(e) => setOpen(e.currentTarget.open)}>
    <summary>Messages it came from</summary>
    <${Problem} error=${events.error} />
    ${open && events.loading && !events.data && html`<${Loading} label="Loading the messages" />`}
    ${events.data && !events.data.length && html`<${Empty}>No kept messages.</${Empty}>`}
    <ol class="events" aria-label="Messages it came from">
      ${(events.data || []).map(
        (e) => html`<li key=${e.id}><div class=${"event " + e.role}>
          <span class="role">${e.role}</span><span class="said">${e.text}</span></div></li>`,
      )}
    </ol>
  </details>`;
}
