import { describe, expect, it } from "vitest";
import { exitTrackerScript } from "../src/tracking/exit-tracker-script";

const EXIT = "https://exit.brand.test";
const SELF = "https://trk.brand.test";

/** Just enough of a page for the script: links, attributes, listeners, location, sessionStorage. */
class FakeElement {
  parentNode: FakeElement | FakeDocument | null = null;
  readonly nodeType = 1;
  constructor(
    readonly tagName: string,
    public href = "",
    private readonly attributes: Record<string, string> = {},
  ) {}
  hasAttribute(name: string) {
    return name in this.attributes;
  }
}

class FakeDocument {
  readyState = "complete";
  listeners: Record<string, ((event: unknown) => void)[]> = {};
  constructor(readonly elements: FakeElement[]) {
    for (const el of elements) el.parentNode ??= this;
  }
  getElementsByTagName(tag: string) {
    return this.elements.filter((e) => e.tagName === tag.toUpperCase());
  }
  addEventListener(type: string, fn: (event: unknown) => void) {
    (this.listeners[type] ??= []).push(fn);
  }
  click(target: FakeElement) {
    let prevented = false;
    for (const fn of this.listeners.click ?? []) fn({ target, preventDefault: () => (prevented = true) });
    return prevented;
  }
}

class FakeStorage {
  readonly data = new Map<string, string>();
  getItem(key: string) {
    return this.data.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.data.set(key, value);
  }
}

interface Page {
  search?: string;
  elements?: FakeElement[];
  storage?: FakeStorage | "blocked";
  readyState?: string;
}

/** Runs the script exactly as served, against a fake window and document. */
function run({ search = "", elements = [], storage = new FakeStorage(), readyState = "complete" }: Page) {
  const document = new FakeDocument(elements);
  document.readyState = readyState;
  const location = { search, href: `https://lander.example/page${search}` };
  const window = {
    location,
    get sessionStorage(): FakeStorage {
      if (storage === "blocked") throw new Error("SecurityError: storage is disabled");
      return storage;
    },
  };
  new Function("window", "document", exitTrackerScript(EXIT, SELF))(window, document);
  return { document, location };
}

const exitTarget = (clickId: string, cid: string) => `${EXIT}/click?clickId=${clickId}&cid=${cid}`;

describe("exit-tracker.js", () => {
  it("points marked links and links to the exit URL at /click with the visit's clickId and cid", () => {
    const marked = new FakeElement("A", "https://offer-network.test/whatever", { "data-exit": "" });
    const toExit = new FakeElement("A", `${EXIT}/click`);
    const toSelf = new FakeElement("A", `${SELF}/click/?old=1`);
    const other = new FakeElement("A", "https://lander.example/privacy");
    run({ search: "?cid=12&clickId=abc-123", elements: [marked, toExit, toSelf, other] });
    for (const link of [marked, toExit, toSelf]) expect(link.href).toBe(exitTarget("abc-123", "12"));
    expect(other.href).toBe("https://lander.example/privacy");
  });

  it("remembers the click for the lander's later pages", () => {
    const storage = new FakeStorage();
    run({ search: "?clickId=abc-123&cid=12", storage });
    const link = new FakeElement("A", "#", { "data-exit": "" });
    run({ search: "", storage, elements: [link] });
    expect(link.href).toBe(exitTarget("abc-123", "12"));
  });

  it("prefers a new click in the URL over the remembered one", () => {
    const storage = new FakeStorage();
    run({ search: "?clickId=old&cid=12", storage });
    const link = new FakeElement("A", "#", { "data-exit": "" });
    run({ search: "?clickId=new&cid=12", storage, elements: [link] });
    expect(link.href).toBe(exitTarget("new", "12"));
  });

  it("encodes what it puts in the exit URL", () => {
    const link = new FakeElement("A", "#", { "data-exit": "" });
    run({ search: "?clickId=a%26b%3Dc&cid=1%202", elements: [link] });
    expect(link.href).toBe(`${EXIT}/click?clickId=a%26b%3Dc&cid=1%202`);
  });

  it("still works when sessionStorage is blocked, and never throws", () => {
    const link = new FakeElement("A", "#", { "data-exit": "" });
    expect(() => run({ search: "?clickId=abc&cid=3", storage: "blocked", elements: [link] })).not.toThrow();
    expect(link.href).toBe(exitTarget("abc", "3"));
  });

  it("leaves the page alone when it knows no click", () => {
    const link = new FakeElement("A", "https://offer.test/direct", { "data-exit": "" });
    const { document } = run({ search: "?utm=1", elements: [link] });
    expect(link.href).toBe("https://offer.test/direct");
    expect(document.listeners.click).toBeUndefined();
  });

  it("catches clicks on exit elements added later, and on marked buttons", () => {
    const { document, location } = run({ search: "?clickId=abc&cid=3" });
    const late = new FakeElement("A", `${EXIT}/click`);
    late.parentNode = document;
    expect(document.click(late)).toBe(false);
    expect(late.href).toBe(exitTarget("abc", "3"));

    const button = new FakeElement("BUTTON", "", { "data-exit": "" });
    const icon = new FakeElement("SPAN");
    icon.parentNode = button;
    button.parentNode = document;
    expect(document.click(icon)).toBe(true);
    expect(location.href).toBe(exitTarget("abc", "3"));
  });

  it("waits for the DOM when loaded in the head", () => {
    const link = new FakeElement("A", "#", { "data-exit": "" });
    const { document } = run({ search: "?clickId=abc&cid=3", elements: [link], readyState: "loading" });
    expect(link.href).toBe("#");
    for (const fn of document.listeners.DOMContentLoaded ?? []) fn({});
    expect(link.href).toBe(exitTarget("abc", "3"));
  });

  it("survives a hostile page: a throwing DOM breaks nothing", () => {
    const document = {
      readyState: "complete",
      getElementsByTagName: () => {
        throw new Error("boom");
      },
      addEventListener: () => {
        throw new Error("boom");
      },
    };
    const window = { location: { search: "?clickId=a&cid=1", href: "" }, sessionStorage: new FakeStorage() };
    expect(() => new Function("window", "document", exitTrackerScript(EXIT, SELF))(window, document)).not.toThrow();
  });

  it("is plain ES5: no arrows, let/const, template strings or classes", () => {
    const source = exitTrackerScript(EXIT, SELF);
    expect(source).not.toMatch(/=>|\blet\s|\bconst\s|`|\bclass\s/);
    expect(source.length).toBeLessThan(4000);
  });
});
