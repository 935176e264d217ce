/**
 * HTML mail to plain text for the code extractor: a single forward scan (no regex backtracking,
 * so hostile markup costs linear time). Unlike postal-mime's own conversion it drops <style>,
 * <script> and <head> content and never writes link targets, and it keeps a marker between
 * table cells so a code laid out one character per <td> can be joined again.
 */

/** Separates table cells in the output; `joinSplitCodes` consumes it. */
export const CELL = "\u0001";

/** Elements whose content is never text a reader sees. */
const SKIPPED = new Set(["style", "script", "head", "title", "template", "svg", "noscript", "xml", "object"]);
/** Elements that start a new line. */
const BLOCKS = new Set([
  "p",
  "div",
  "br",
  "tr",
  "table",
  "tbody",
  "thead",
  "tfoot",
  "li",
  "ul",
  "ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "blockquote",
  "section",
  "article",
  "header",
  "footer",
  "center",
  "pre",
  "dd",
  "dt",
  "dl",
  "form",
  "address",
  "main",
  "nav",
  "aside",
  "figure",
  "figcaption",
  "caption",
  "body",
  "html",
]);
const CELLS = new Set(["td", "th"]);
/** Inline formatting: removed without a space, so `<span>4</span><span>8</span>` reads "48". */
const INLINE = new Set([
  "span",
  "b",
  "strong",
  "i",
  "em",
  "u",
  "a",
  "font",
  "small",
  "big",
  "sup",
  "sub",
  "code",
  "mark",
  "label",
  "s",
  "strike",
  "tt",
  "kbd",
  "samp",
  "var",
  "abbr",
  "cite",
  "q",
  "ins",
  "del",
  "bdi",
  "bdo",
  "wbr",
  "o:p",
]);

const NAMED_ENTITIES: Record<string, string> = {
  nbsp: "\u00a0",
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  copy: "©",
  reg: "®",
  trade: "™",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  middot: "·",
  bull: "•",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  zwnj: "",
  zwj: "",
  shy: "",
  thinsp: "\u2009",
  ensp: "\u2002",
  emsp: "\u2003",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  times: "×",
  deg: "°",
  larr: "←",
  rarr: "→",
  iexcl: "¡",
  iquest: "¿",
  aacute: "á",
  eacute: "é",
  iacute: "í",
  oacute: "ó",
  uacute: "ú",
  ntilde: "ñ",
  ccedil: "ç",
  atilde: "ã",
  otilde: "õ",
  agrave: "à",
  egrave: "è",
  ecirc: "ê",
  ocirc: "ô",
  auml: "ä",
  ouml: "ö",
  uuml: "ü",
  szlig: "ß",
  Aacute: "Á",
  Eacute: "É",
  Ntilde: "Ñ",
  Auml: "Ä",
  Ouml: "Ö",
  Uuml: "Ü",
};

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi, (match, body: string) => {
    if (body[0] === "#") {
      const cp = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(cp) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return "\ufffd";
      return String.fromCodePoint(cp);
    }
    return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? match;
  });
}

const TAG_NAME = /<\/?([a-z][a-z0-9:-]*)/iy;

export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const out: string[] = [];
  let pos = 0;
  while (pos < html.length) {
    const lt = html.indexOf("<", pos);
    if (lt < 0) {
      out.push(decodeEntities(html.slice(pos)));
      break;
    }
    if (lt > pos) out.push(decodeEntities(html.slice(pos, lt)));

    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      if (end < 0) break;
      pos = end + 3;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const match = TAG_NAME.exec(html);
    const gt = html.indexOf(">", lt + 1);
    if (gt < 0) break; // an unclosed tag: the rest is markup debris, not text
    if (!match) {
      // `<!DOCTYPE>`, `<?xml?>`, or a stray "<" in text ("a < b"): keep the stray one as text.
      if (html[lt + 1] === "!" || html[lt + 1] === "?") {
        pos = gt + 1;
      } else {
        out.push("<");
        pos = lt + 1;
      }
      continue;
    }
    const name = match[1]!.toLowerCase();
    const closing = html[lt + 1] === "/";
    pos = gt + 1;
    if (!closing && SKIPPED.has(name) && html[gt - 1] !== "/") {
      const end = lower.indexOf(`</${name}`, pos);
      if (end < 0) break;
      const endGt = html.indexOf(">", end);
      pos = endGt < 0 ? html.length : endGt + 1;
      continue;
    }
    if (BLOCKS.has(name)) out.push("\n");
    else if (CELLS.has(name)) out.push(CELL);
    else if (!INLINE.has(name)) out.push(" ");
  }
  return out.join("");
}

const SINGLE_CHAR = /^[\p{L}\p{N}]$/u;

/**
 * Joins codes laid out one character per table cell, per line or per spaced block
 * (`<td>4</td><td>8</td>…`, `<div>4</div><div>8</div>…`): four or more consecutive single
 * letters or digits become one word. Cell markers left over become spaces.
 */
export function joinSplitCodes(text: string): string {
  const lines = text.split("\n").map((line) => {
    if (!line.includes(CELL)) return line;
    const cells = line
      .split(CELL)
      .map((c) => c.trim())
      .filter((c) => c !== "");
    return joinRuns(cells).join(" ");
  });
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length >= 4) out.push(run.join(""));
    else out.push(...run);
    run = [];
  };
  for (const line of lines) {
    const t = line.trim();
    if (t === "") {
      // Blank lines between the per-line characters are layout, not a break in the code.
      if (!run.length) out.push(line);
      continue;
    }
    if (SINGLE_CHAR.test(t)) {
      run.push(t);
      continue;
    }
    flush();
    out.push(line);
  }
  flush();
  return out.join("\n");
}

function joinRuns(cells: string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  for (const cell of [...cells, ""]) {
    if (SINGLE_CHAR.test(cell)) {
      run.push(cell);
      continue;
    }
    if (run.length >= 4) out.push(run.join(""));
    else out.push(...run);
    run = [];
    if (cell !== "") out.push(cell);
  }
  return out;
}
