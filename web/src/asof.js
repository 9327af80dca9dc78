// The past view of an agent: its memory as it stood at an instant, read from the versions the
// service keeps (`asOf=` on record listings, file memories and the agent's manifest). The
// instant lives in the route (`?asOf=`), so a reload or a shared link shows the same past.

import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { when } from "./util.js";
import { Problem } from "./widgets.js";

// The reads' extra parameters: `asOf` in a past view, nothing in the view of now.
export const past = (asOf) => (asOf ? { asOf } : {});

// Whether `at` (an API time) was already so at `asOf`; everything is, in the view of now.
export const byThen = (at, asOf) => !asOf || Date.parse(at) <= Date.parse(asOf);

// The route's `asOf`, checked before any read: one that names no instant is shown as an error
// on the page, never sent. The service takes an ISO 8601 date-time with its offset.
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function checkAsOf(raw) {
  if (!raw) return null;
  if (!ISO.test(raw) || isNaN(Date.parse(raw))) {
    return {
      code: "invalid_as_of",
      message: `“${raw}” is not a time to view the agent at: a past view needs an ISO 8601 date-time with its offset, such as 2026-01-31T12:00:00Z.`,
    };
  }
  return null;
}

const pad = (n) => String(n).padStart(2, "0");

// A date-time input holds local time without an offset (`2026-01-31T13:00:05`).
export function toLocalInput(iso) {
  const d = new Date(iso || "");
  if (isNaN(d)) return "";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function fromLocalInput(value) {
  // Date-time text without an offset is read as local time, as the input shows it.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value || "")) return null;
  const d = new Date(value);
  return isNaN(d) ? null : d.toISOString();
}

// The control: a local date-time and Show. An empty or partial time, or one still to come, is
// said in words beside it and nothing is read.
export function AsOfControl({ asOf, onChange }) {
  const [value, setValue] = useState(toLocalInput(asOf));
  const [error, setError] = useState(null);
  useEffect(() => {
    setValue(toLocalInput(asOf));
    setError(null);
  }, [asOf]);
  const submit = (event) => {
    event.preventDefault();
    const iso = fromLocalInput(value);
    if (!iso) {
      setError({
        code: "invalid_as_of",
        message: "Enter a whole date and time (day, hour and minute) to view the agent as it was then.",
      });
      return;
    }
    if (Date.parse(iso) > Date.now()) {
      setError({ code: "invalid_as_of", message: "That time is still to come: choose a time in the past." });
      return;
    }
    setError(null);
    onChange(iso);
  };
  return html`<form class="asof" aria-label="View the past" onSubmit=${submit}>
    <div class="field inline">
      <label for="as-of">As of</label>
      <input id="as-of" type="datetime-local" step="1" value=${value} aria-describedby="as-of-help"
        onInput=${(e) => setValue(e.target.value)} />
      <button type="submit">Show</button>
    </div>
    <small id="as-of-help" class="muted">Your local time: memories, records and manifest as they stood then.</small>
    <${Problem} error=${error} />
  </form>`;
}

// Said above every tab while the page shows the past: what it shows, that it is read-only, and
// the way back.
export const PastBanner = ({ asOf, onNow }) => html`<div class="past" role="note" aria-label="Past view">
  <p><strong>Viewing the past:</strong> as it stood at${" "}
    <time datetime=${asOf}>${when(asOf)}</time> (<code>${asOf}</code>). Read-only: nothing can be
    changed from this view.</p>
  <button type="button" class="primary" onClick=${onNow}>Back to now</button>
</div>`;
