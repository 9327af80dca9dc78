// Pieces every page uses: errors, loading, the diff view, Markdown, the confirmation dialog.

import { diffLines } from "diff";
import DOMPurify from "dompurify";
import { Marked } from "marked";
import { useEffect, useRef } from "preact/hooks";
import { html } from "./html.js";

export function Problem({ error }) {
  if (!error) return null;
  const code = error.code ? html`<code>${error.code}</code> ` : "";
  return html`<p class="problem" role="alert">${code}${error.message || String(error)}</p>`;
}

export const Loading = ({ label = "Loading" }) =>
  html`<p class="muted" role="status" aria-live="polite">${label}…</p>`;

// A line diff of two texts; every line says whether it was added or removed for screen readers
// too, not only by colour. Long unchanged runs fold to their first and last lines of context.
const CONTEXT = 3;

export function Diff({ before, after, label }) {
  const lines = [];
  for (const part of diffLines(before ?? "", after ?? "")) {
    const kind = part.added ? "add" : part.removed ? "del" : "same";
    for (const text of part.value.replace(/\n$/, "").split("\n")) lines.push({ kind, text });
  }
  const changed = lines.some((line) => line.kind !== "same");
  const near = (i) =>
    lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((line) => line.kind !== "same");
  const shown = [];
  let folded = 0;
  lines.forEach((line, i) => {
    if (!changed || line.kind !== "same" || near(i)) {
      if (folded) shown.push({ kind: "fold", text: `… ${folded} unchanged line${folded === 1 ? "" : "s"}` });
      folded = 0;
      shown.push(line);
    } else {
      folded += 1;
    }
  });
  if (folded) shown.push({ kind: "fold", text: `… ${folded} unchanged line${folded === 1 ? "" : "s"}` });
  const sign = { add: "+", del: "-", same: " ", fold: " " };
  const said = { add: "added", del: "removed" };
  return html`<figure class="diff" aria-label=${label}>
    ${!changed && html`<p class="muted">No difference.</p>`}
    <pre>${shown.map(
      (line, i) =>
        html`<span key=${i} class=${"line " + line.kind}
          ><span class="sign" aria-label=${said[line.kind]}>${sign[line.kind]}</span
          >${line.text + "\n"}</span
        >`,
    )}</pre>
  </figure>`;
}

// Memories are written by agents: untrusted text. HTML inside their Markdown is shown as text
// (never parsed, so no handler or script in it can run), images become links (nothing is
// fetched from elsewhere), and the result is sanitised as well (javascript: links).
const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const markdown = new Marked({
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href || "")}">image: ${escapeHtml(text || href || "")}</a>`,
  },
});

export function Markdown({ text }) {
  const clean = DOMPurify.sanitize(markdown.parse(text ?? "", { async: false }));
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: clean }}></div>`;
}

// A modal <dialog>: the browser traps focus in it and Escape cancels it.
export function Confirm({ open, title, children, confirmLabel, onConfirm, onCancel, busy }) {
  const ref = useRef(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return html`<dialog ref=${ref} aria-labelledby="confirm-title" onCancel=${(e) => {
      e.preventDefault();
      onCancel();
    }}>
    <h2 id="confirm-title">${title}</h2>
    ${children}
    <div class="actions">
      <button type="button" onClick=${onCancel}>Cancel</button>
      <button type="button" class="danger" disabled=${busy} onClick=${onConfirm}>${confirmLabel}</button>
    </div>
  </dialog>`;
}

export const Empty = ({ children }) => html`<p class="empty">${children}</p>`;

// The From and To of a comparison between two versions.
export const VersionPair = ({ idPrefix, options, from, to, setFrom, setTo }) =>
  [
    ["from", "From", from, setFrom],
    ["to", "To", to, setTo],
  ].map(
    ([end, label, value, set]) => html`<div class="field inline" key=${end}>
      <label for=${`${idPrefix}-${end}`}>${label}</label>
      <select id=${`${idPrefix}-${end}`} value=${value} onChange=${(e) => set(e.target.value)}>
        ${options.map(([key, text]) => html`<option value=${key} key=${key}>${text}</option>`)}
      </select>
    </div>`,
  );
