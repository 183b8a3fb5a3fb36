// Writes each card component of a React SVG card package (SVGR output: one
// React.createElement tree per card) as a plain SVG file, so rsvg-convert can draw it.
//   node react_svg.mjs PACKAGE_ESM_JS OUT_DIR
// The package is evaluated with a stand-in React whose createElement returns SVG markup;
// nothing is imported from the network or from node_modules.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const [source, outDir] = process.argv.slice(2);
// SVGR writes SVG attributes in React's camelCase; these keep it in SVG, the rest are
// hyphenated again (strokeWidth -> stroke-width).
const CAMEL = new Set(["viewBox", "preserveAspectRatio", "patternUnits", "patternContentUnits",
  "patternTransform", "gradientUnits", "gradientTransform", "clipPathUnits", "maskUnits",
  "maskContentUnits", "spreadMethod", "textLength", "lengthAdjust", "startOffset",
  "stdDeviation", "baseFrequency", "numOctaves", "markerWidth", "markerHeight",
  "markerUnits", "refX", "refY", "pathLength", "filterUnits", "primitiveUnits"]);
const RENAMED = { className: "class", xlinkHref: "xlink:href", xmlSpace: "xml:space",
  xmlnsXlink: "xmlns:xlink", htmlFor: "for" };
const escape = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;")
  .replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const attribute = (key) => RENAMED[key] ?? (CAMEL.has(key) ? key
  : key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
const style = (value) => Object.entries(value)
  .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}:${v}`).join(";");

class Markup {  // an element already written out, told apart from text to escape
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

function createElement(tag, props, ...children) {
  if (typeof tag === "function") return tag({ ...props, children });
  const attrs = Object.entries(props ?? {})
    .filter(([k, v]) => v !== undefined && v !== null && v !== false && k !== "children")
    .map(([k, v]) => ` ${attribute(k)}="${escape(k === "style" && typeof v === "object" ? style(v) : v)}"`)
    .join("");
  const inner = children.flat(Infinity)
    .filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Markup ? c.text : escape(c))).join("");
  return new Markup(`<${tag}${attrs}>${inner}</${tag}>`);
}

let code = readFileSync(source, "utf8")
  .replace(/^import _extends from ['"][^'"]+['"];?$/m, "const _extends = Object.assign;")
  .replace(/^import \* as React from ['"]react['"];?$/m, "")
  .replace(/^export \{([^}]*)\};?\s*$/m, (_, names) => `return {${names.split(",")
    .map((n) => n.trim().split(/\s+as\s+/)).map(([local, name]) => `${JSON.stringify(name ?? local)}: ${local}`)
    .join(", ")}};`);
const components = new Function("React", code)({ createElement });
mkdirSync(outDir, { recursive: true });
let written = 0;
for (const [name, component] of Object.entries(components)) {
  let svg = String(component({}));
  if (!svg.includes('xmlns:xlink') && svg.includes('xlink:href')) {
    svg = svg.replace("<svg", '<svg xmlns:xlink="http://www.w3.org/1999/xlink"');
  }
  writeFileSync(join(outDir, `${name}.svg`), '<?xml version="1.0" encoding="UTF-8"?>\n' + svg);
  written += 1;
}
console.log(`${written} SVG files -> ${outDir}`);
