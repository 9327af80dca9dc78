import { h } from "preact";
import htm from "htm";

// Tagged templates instead of JSX: no compile step beyond bundling.
export const html = htm.bind(h);
