// The Memory tab (the file-memory spec's): each memory with its description, version, who
// changed it last and when; a row opens its content, its history with a diff between any two
// versions, an editor that writes with compare-and-swap, and Delete behind a confirmation. In a
// past view (`asOf`) every read answers for that instant and nothing can be changed.

import { useEffect, useState } from "preact/hooks";
import { agentPath, get, getAll, request, segments } from "./api.js";
import { byThen, past } from "./asof.js";
import { html } from "./html.js";
import { ago, href, navigate, useLoad, useReveal, when } from "./util.js";
import { Confirm, Diff, Empty, Loading, Markdown, Problem, VersionPair } from "./widgets.js";

const PREFIX = "/memories/";
const short = (path) => (path.startsWith(PREFIX) ? path.slice(PREFIX.length) : path);
const memoryUrl = (agentId, path) => agentPath(agentId, "memories/" + segments(short(path)));

export function MemoryTab({ agentId, rest, changed, asOf }) {
  const selected = rest ? PREFIX + rest : null;
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const list = useLoad(
    () =>
      query
        ? get(agentPath(agentId, "memories"), { query, limit: 50, ...past(asOf) }).then((r) => r.memories)
        : getAll(agentPath(agentId, "memories"), "memories", past(asOf)),
    [agentId, query, changed, asOf],
  );
  const open = (path) => navigate(`/agents/${agentId}/-/memory/${short(path)}`);
  return html`<div class=${"split" + (selected ? " has-detail" : "")}>
    <section aria-labelledby="memories-title" class="list-pane">
      <h2 id="memories-title" class="sr-only">Memories</h2>
      <form class="searchbar" role="search" onSubmit=${(e) => {
          e.preventDefault();
          setQuery(text.trim());
        }}>
        <label for="memory-search" class="sr-only">Search memories</label>
        <input id="memory-search" type="search" placeholder="Search memories by path, description or content"
          value=${text} onInput=${(e) => {
            setText(e.target.value);
            if (!e.target.value) setQuery("");
          }} />
        <button type="submit">Search</button>
      </form>
      ${query && html`<p class="muted">Best matches for “${query}”.</p>`}
      <${Problem} error=${list.error} />
      ${list.loading && !list.data
        ? html`<${Loading} label="Loading memories" />`
        : html`<div class="table-wrap">
            <table aria-label="Memories">
              <thead>
                <tr><th>Path</th><th class="wide">Description</th><th>Version</th>
                  <th class="wide">Changed by</th><th>Updated</th></tr>
              </thead>
              <tbody>
                ${(list.data || []).map(
                  (m) => html`<tr key=${m.path} class=${m.path === selected ? "selected" : ""}>
                    <td><a href=${href(`/agents/${agentId}/-/memory/${short(m.path)}`)}
                      aria-current=${m.path === selected ? "true" : undefined}>${short(m.path)}</a>
                      <div class="narrow muted">${m.description}${m.description ? " · " : ""}<${Actor}
                        actor=${m.updatedBy} agentId=${agentId} /></div></td>
                    <td class="wide">${m.description || html`<span class="muted">—</span>`}</td>
                    <td>v${m.version}</td>
                    <td class="wide"><${Actor} actor=${m.updatedBy} agentId=${agentId} /></td>
                    <td title=${when(m.updatedAt)}>${ago(m.updatedAt)}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
            ${list.data && !list.data.length &&
            html`<${Empty}>${query
              ? "No memory matches."
              : asOf ? "This agent had no memories then." : "This agent has no memories yet."}</${Empty}>`}
          </div>`}
    </section>
    ${selected &&
    html`<${MemoryDetail} key=${selected} agentId=${agentId} path=${selected} changed=${changed} asOf=${asOf}
      onClose=${() => navigate(`/agents/${agentId}/-/memory`)} onChanged=${list.reload} open=${open} />`}
  </div>`;
}

// The frontmatter is the memory's description, shown above already; rendered it would be a rule
// and a stray heading.
const withoutFrontmatter = (text) => (text || "").replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, "");

// `agent:teams/web@3` (this agent, manifest v3) reads as "agent @3"; anyone else in full.
export const Actor = ({ actor, agentId }) => {
  if (!actor) return html`<span class="muted">—</span>`;
  const colon = actor.indexOf(":");
  const who = colon < 0 ? actor : actor.slice(0, colon);
  let rest = colon < 0 ? "" : actor.slice(colon + 1);
  if (agentId && who === "agent" && rest.startsWith(agentId + "@")) rest = rest.slice(agentId.length);
  return html`<span class="actor" title=${actor}><span class="chip">${who}</span> ${rest}</span>`;
};

function MemoryDetail({ agentId, path, changed, asOf, onClose, onChanged }) {
  // The history first: it says whether the memory is still there, so a deleted one is never
  // asked for (no 404 to show) and its history stays on screen. In a past view, the history
  // up to that instant says whether it was there then.
  const memory = useLoad(async () => {
    const all = await getAll(agentPath(agentId, "memory-versions"), "versions", { path });
    const versions = all.filter((v) => byThen(v.at, asOf));
    const newest = versions[0];
    if (!newest) return { missing: true, versions };
    if (newest.operation === "delete" || newest.path !== path) return { gone: true, versions };
    return { ...(await get(memoryUrl(agentId, path), past(asOf))), versions };
  }, [agentId, path, changed, asOf]);
  const ref = useReveal();
  const [view, setView] = useState("rendered");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState("");
  const gone = Boolean(memory.data && (memory.data.gone || memory.data.missing));

  useEffect(() => {
    // A memory deleted (here or elsewhere) has only its history left to show.
    if (gone && view !== "history") setView("history");
    // The past is read-only: an editor open when the view moved there closes.
    else if (asOf && view === "edit") setView("rendered");
  }, [gone, asOf]);

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await request("DELETE", memoryUrl(agentId, path));
      setConfirming(false);
      setNotice(`Deleted ${short(path)}.`);
      setView("history");
      memory.reload();
      onChanged();
    } catch (problem) {
      setError(problem);
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };

  const views = gone ? [["history", "History"]] : [
    ["rendered", "Rendered"],
    ["raw", "Raw"],
    ["history", "History"],
    ...(asOf ? [] : [["edit", "Edit"]]),
  ];
  const data = gone ? null : memory.data;
  return html`<section class="detail card" aria-labelledby="memory-title" ref=${ref}>
    <div class="detail-head">
      <h2 id="memory-title" class="path">${short(path)}</h2>
      <button type="button" class="link" onClick=${onClose}>Close</button>
    </div>
    ${data &&
    html`<p class="meta">
      ${data.description && html`<span>${data.description}</span>${" · "}`}v${data.version}${" · "}
      <${Actor} actor=${data.updatedBy} agentId=${agentId} />${" · "}
      <span title=${when(data.updatedAt)}>${ago(data.updatedAt)}</span>${" · "}${data.bytes} bytes</p>`}
    ${memory.data && memory.data.gone && html`<p class="notice">${asOf
      ? "This memory was deleted by then; its history is kept."
      : "This memory is deleted; its history is kept."}</p>`}
    ${memory.data && memory.data.missing && html`<p class="notice">${asOf
      ? "No memory had this path then."
      : "No memory has this path."}</p>`}
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    <${Problem} error=${error || memory.error} />
    <div class="toolbar">
      <div class="segmented" role="group" aria-label="Show">
        ${views.map(
          ([name, label]) =>
            html`<button type="button" aria-pressed=${view === name ? "true" : "false"}
              onClick=${() => setView(name)}>${label}</button>`,
        )}
      </div>
      ${!gone && data && !asOf &&
      html`<button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete</button>`}
    </div>
    ${memory.loading && !memory.data && html`<${Loading} label="Loading the memory" />`}
    ${data && view === "rendered" && html`<${Markdown} text=${withoutFrontmatter(data.content)} />`}
    ${data && view === "raw" && html`<pre class="raw" aria-label="Raw content">${data.content}</pre>`}
    ${view === "history" && memory.data &&
    html`<${History} agentId=${agentId} versions=${memory.data.versions} />`}
    ${data && view === "edit" && !asOf &&
    html`<${Editor} agentId=${agentId} path=${path} base=${data}
      onSaved=${(saved) => {
        setNotice(`Saved v${saved.version}.`);
        setView("rendered");
        memory.reload();
        onChanged();
      }} onCancel=${() => setView("rendered")} />`}
    <${Confirm} open=${confirming} title="Delete this memory?" confirmLabel="Delete" busy=${busy}
      onConfirm=${remove} onCancel=${() => setConfirming(false)}>
      <p><code>${short(path)}</code> will be gone for the agent from its next turn. Its history is kept.</p>
    </${Confirm}>
  </section>`;
}

// Writes only while the memory still has the content the editor started from (contentSha256);
// a 409 shows the current version beside the draft, and a diff between them.
function Editor({ agentId, path, base, onSaved, onCancel }) {
  const [start, setStart] = useState(base);
  const [draft, setDraft] = useState(base.content);
  const [conflict, setConflict] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const save = async (sha) => {
    setBusy(true);
    setError(null);
    try {
      // Looked at first so that the usual conflict is shown without a failed request; the
      // write's own compare-and-swap still catches a change that lands in between.
      const now = await currentOf(agentId, path);
      if ((now.contentSha256 ?? "") !== (sha ?? "")) {
        setConflict(now);
        return;
      }
      const saved = await request("PUT", memoryUrl(agentId, path), {
        body: { content: draft, contentSha256: sha },
      });
      onSaved(saved || {});
    } catch (problem) {
      if (problem.status === 409 && problem.code === "memory_conflict") {
        setConflict(await currentOf(agentId, path, problem));
      } else {
        setError(problem);
      }
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="editor" onSubmit=${(e) => {
      e.preventDefault();
      save(conflict ? conflict.contentSha256 ?? "" : start.contentSha256);
    }}>
    <label for="memory-editor">Content of ${short(path)} (editing v${start.version})</label>
    <textarea id="memory-editor" class="code" rows="14" spellcheck="false" value=${draft}
      onInput=${(e) => setDraft(e.target.value)}></textarea>
    ${conflict &&
    html`<div class="conflict" role="alert">
      <h3>Changed meanwhile</h3>
      <p>${conflict.deleted
        ? "The memory was deleted after you started editing."
        : html`Now v${conflict.version}, by <${Actor} actor=${conflict.updatedBy} />. Nothing was saved.`}</p>
      <div class="columns">
        <div><h4>Current version</h4><pre class="raw" aria-label="Current version">${conflict.content ?? ""}</pre></div>
        <div><h4>Your version</h4><pre class="raw" aria-label="Your version">${draft}</pre></div>
      </div>
      <h4>From the current version to yours</h4>
      <${Diff} before=${conflict.content ?? ""} after=${draft} label="Diff from the current version to yours" />
    </div>`}
    <${Problem} error=${error} />
    <div class="actions">
      <button type="button" onClick=${onCancel}>Cancel</button>
      ${conflict &&
      html`<button type="button" onClick=${() => {
          setDraft(conflict.content ?? "");
          setStart(conflict);
          setConflict(null);
        }}>Take the current version</button>`}
      <button type="submit" class="primary" disabled=${busy}>
        ${conflict ? "Save mine over it" : "Save"}</button>
    </div>
  </form>`;
}

// The memory as it is now: from a 409 when it carries it, else read again (through its history,
// which says whether it was deleted without a 404).
async function currentOf(agentId, path, problem) {
  const carried = problem && problem.body && problem.body.error && problem.body.error.current;
  if (carried && typeof carried.content === "string") return carried;
  const versions = await get(agentPath(agentId, "memory-versions"), { path, limit: 1 });
  const newest = versions.versions[0];
  if (!newest || newest.operation === "delete" || newest.path !== path) {
    return { deleted: true, content: "", contentSha256: "" };
  }
  return get(memoryUrl(agentId, path));
}

function History({ agentId, versions }) {
  const list = versions;
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [diff, setDiff] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    // Default: the newest change against the one before it.
    if (list.length) {
      setTo(list[0].id);
      setFrom((list[1] || list[0]).id);
    }
  }, [versions]);
  const compare = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      const [a, b] = await Promise.all(
        [from, to].map((id) => get(agentPath(agentId, "memory-versions/" + id))),
      );
      setDiff({ a, b });
    } catch (problem) {
      setError(problem);
    }
  };
  const label = (v) => `v${v.version} ${v.operation} · ${when(v.at)}`;
  return html`<div class="history">
    <${Problem} error=${error} />
    <ol class="timeline" aria-label="Versions, newest first">
      ${list.map(
        (v) => html`<li key=${v.id}>
          <span class=${"op " + v.operation}>${v.operation}</span>
          <strong>v${v.version}</strong>
          ${v.fromPath && html` from <code>${short(v.fromPath)}</code>`}
          <${Actor} actor=${v.actor} agentId=${agentId} />
          <span class="muted" title=${when(v.at)}>${ago(v.at)}</span>
          ${v.sessionId && v.turnId &&
          html`<a href=${href(`/agents/${agentId}/-/sessions/${v.sessionId}/${v.turnId}`)}>turn</a>`}
        </li>`,
      )}
    </ol>
    ${list.length > 1 &&
    html`<form class="compare" onSubmit=${compare}>
      <${VersionPair} idPrefix="diff" options=${list.map((v) => [v.id, label(v)])} from=${from} to=${to}
        setFrom=${setFrom} setTo=${setTo} />
      <button type="submit">Compare</button>
    </form>`}
    ${diff &&
    html`<${Diff} before=${diff.a.content ?? ""} after=${diff.b.content ?? ""}
      label=${`Diff from v${diff.a.version} to v${diff.b.version}`} />`}
  </div>`;
}
