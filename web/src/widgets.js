// Pieces every page uses: errors, loading, the diff view, Markdown, the confirmation dialog.

import { diffLines } from "diff";
import DOMPurify from "dompurify";
import { marked } from "marked";
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
// too, not only by colour.
export function Diff({ before, after, label }) {
  const parts = diffLines(before ?? "", after ?? "");
  const changed = parts.some((part) => part.added || part.removed);
  return html`<figure class="diff" aria-label=${label}>
    ${!changed && html`<p class="muted">No difference.</p>`}
    <pre>${parts.flatMap((part, i) => {
      const kind = part.added ? "add" : part.removed ? "del" : "same";
      const sign = part.added ? "+" : part.removed ? "-" : " ";
      const lines = part.value.replace(/\n$/, "").split("\n");
      return lines.map(
        (line, j) =>
          html`<span key=${i + "." + j} class=${"line " + kind}
            ><span class="sign" aria-label=${kind === "same" ? "" : kind === "add" ? "added" : "removed"}
              >${sign}</span
            >${line + "\n"}</span
          >`,
      );
    })}</pre>
  </figure>`;
}

// Memories are written by agents: their Markdown is rendered, then sanitised, so that no
// script, handler or javascript: link in a memory runs in the console.
export function Markdown({ text }) {
  const clean = DOMPurify.sanitize(marked.parse(text ?? "", { async: false }));
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
