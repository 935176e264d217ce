/**
 * A small, strict reader for Namecheap's XML answers.
 *
 * Why our own and not a general parser: the answers are a few kilobytes of plain elements and
 * attributes, and what we need from them is lookup by name *without regard to case* (live answers
 * differ in case from the documented examples: `getinfo` vs `getInfo`, `register` vs `REGISTER`).
 * General parsers hand back objects keyed by the names as written, so every lookup would need its
 * own case folding and single-versus-array handling. This reader folds case once, keeps every
 * element as a list, expands only the five predefined entities and numeric references, and refuses
 * DOCTYPE declarations outright, so no entity expansion can be smuggled in.
 */

export interface XmlElement {
  /** The local name as written (no namespace prefix). */
  name: string;
  /** Attribute values by lower-cased local name. */
  attributes: Map<string, string>;
  children: XmlElement[];
  /** The element's own text (CDATA included), entities expanded, not trimmed. */
  text: string;
}

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XmlError";
  }
}

/** Far above any Namecheap answer; a larger body is not one. */
const MAX_LENGTH = 2_000_000;
const MAX_DEPTH = 64;

const NAME = /[A-Za-z_][\w.:-]*/y;
const SPACE = /\s*/y;
const ATTRIBUTE = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;

const localName = (qualified: string) => qualified.slice(qualified.indexOf(":") + 1);
const fold = (name: string) => localName(name).toLowerCase();

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (code > 0x10ffff) throw new XmlError(`Invalid character reference ${whole}`);
      return String.fromCodePoint(code);
    }
    const value = ENTITIES[ref];
    if (value === undefined) throw new XmlError(`Unknown entity ${whole}`);
    return value;
  });
}

/** Parses a whole document and returns its root element. Throws XmlError when it is not well formed. */
export function parseXml(source: string): XmlElement {
  if (source.length > MAX_LENGTH) throw new XmlError("The document is too large");
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;

  const fail = (message: string): never => {
    throw new XmlError(`${message} at offset ${i}`);
  };
  const skipPast = (terminator: string, what: string) => {
    const end = source.indexOf(terminator, i);
    if (end < 0) fail(`Unterminated ${what}`);
    const body = source.slice(i, end);
    i = end + terminator.length;
    return body;
  };
  const readName = () => {
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m) return fail("Expected a name");
    i = NAME.lastIndex;
    return m[0];
  };
  const skipSpace = () => {
    SPACE.lastIndex = i;
    SPACE.exec(source);
    i = SPACE.lastIndex;
  };

  if (source.charCodeAt(0) === 0xfeff) i = 1;
  while (i < source.length) {
    const lt = source.indexOf("<", i);
    const textEnd = lt < 0 ? source.length : lt;
    if (textEnd > i) {
      const text = source.slice(i, textEnd);
      const current = stack.at(-1);
      if (current) current.text += decode(text);
      else if (text.trim()) fail("Text outside the root element");
      i = textEnd;
      continue;
    }
    if (source.startsWith("<?", i)) {
      i += 2;
      skipPast("?>", "processing instruction");
    } else if (source.startsWith("<!--", i)) {
      i += 4;
      skipPast("-->", "comment");
    } else if (source.startsWith("<![CDATA[", i)) {
      i += 9;
      const data = skipPast("]]>", "CDATA section");
      const current = stack.at(-1) ?? fail("CDATA outside the root element");
      current.text += data;
    } else if (source.startsWith("<!", i)) {
      // DOCTYPE and the declarations that come with it are how entity bombs get in.
      fail("Document type declarations are not accepted");
    } else if (source.startsWith("</", i)) {
      i += 2;
      const name = readName();
      skipSpace();
      if (source[i] !== ">") fail("Expected >");
      i++;
      const open = stack.pop();
      if (!open || fold(name) !== open.name.toLowerCase()) fail(`Unexpected closing tag </${name}>`);
    } else {
      i++;
      const name = readName();
      const element: XmlElement = { name: localName(name), attributes: new Map(), children: [], text: "" };
      for (;;) {
        skipSpace();
        if (source.startsWith("/>", i) || source[i] === ">") break;
        ATTRIBUTE.lastIndex = i;
        const m = ATTRIBUTE.exec(source);
        if (!m) fail(`Malformed attribute in <${name}>`);
        i = ATTRIBUTE.lastIndex;
        const key = fold(m![1]!);
        if (key === "xmlns" || m![1]!.startsWith("xmlns:")) continue;
        if (element.attributes.has(key)) fail(`Duplicate attribute ${m![1]} in <${name}>`);
        element.attributes.set(key, decode(m![2] ?? m![3] ?? ""));
      }
      const selfClosing = source[i] === "/";
      i += selfClosing ? 2 : 1;
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) fail("More than one root element");
      else root = element;
      if (!selfClosing) {
        if (stack.length >= MAX_DEPTH) fail("Elements nested too deeply");
        stack.push(element);
      }
    }
  }
  if (stack.length) throw new XmlError(`Unclosed element <${stack.at(-1)!.name}>`);
  if (!root) throw new XmlError("No root element");
  return root;
}

/** An attribute's value, found without regard to case. */
export const attr = (element: XmlElement | undefined, name: string): string | undefined => element?.attributes.get(name.toLowerCase());

/** Direct children with this name, without regard to case. */
export const childrenNamed = (element: XmlElement | undefined, name: string): XmlElement[] =>
  element ? element.children.filter((c) => c.name.toLowerCase() === name.toLowerCase()) : [];

export const child = (element: XmlElement | undefined, name: string): XmlElement | undefined => childrenNamed(element, name)[0];

/** Every element below this one (not itself) with this name, in document order. */
export function descendants(element: XmlElement | undefined, name: string): XmlElement[] {
  const wanted = name.toLowerCase();
  const found: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) {
      if (c.name.toLowerCase() === wanted) found.push(c);
      walk(c);
    }
  };
  if (element) walk(element);
  return found;
}

export const descendant = (element: XmlElement | undefined, name: string): XmlElement | undefined => descendants(element, name)[0];

/** The trimmed text of a child element, if there is one. */
export const childText = (element: XmlElement | undefined, name: string): string | undefined => child(element, name)?.text.trim();

/** Namecheap writes booleans as true/True/TRUE (and sometimes yes). */
export const isTrue = (value: string | undefined) => /^(true|yes)$/i.test(value?.trim() ?? "");
