import { describe, expect, it } from "vitest";
import {
  attributableTemplate,
  attributionProblem,
  createOfferSchema,
  DEFAULT_UTM_TEMPLATE,
  OLD_DEFAULT_UTM_TEMPLATE,
  templateProblems,
  TEMPLATE_TOKENS,
} from "../src/schemas/offers";
import { campaignLinks, exitBase, redirectBase, TRACKING_QUERY } from "../src/tracking/links";
import { appendQuery, fillTemplate } from "../src/tracking/urls";

const noValues = Object.fromEntries(TEMPLATE_TOKENS.map((t) => [t, null])) as Record<(typeof TEMPLATE_TOKENS)[number], null>;

describe("appendQuery", () => {
  it("starts a query string, or continues the URL's own", () => {
    expect(appendQuery("https://offer.test/go", "a=1")).toBe("https://offer.test/go?a=1");
    expect(appendQuery("https://offer.test", "a=1")).toBe("https://offer.test/?a=1");
    expect(appendQuery("https://offer.test/go?aff=7&x=%20y", "a=1")).toBe("https://offer.test/go?aff=7&x=%20y&a=1");
    expect(appendQuery("https://offer.test/go?", "a=1")).toBe("https://offer.test/go?a=1");
    expect(appendQuery("https://offer.test/go?aff=7&", "a=1")).toBe("https://offer.test/go?aff=7&a=1");
  });

  it("keeps the fragment last", () => {
    expect(appendQuery("https://lp.test/page?x=1#buy", "cid=3")).toBe("https://lp.test/page?x=1&cid=3#buy");
  });

  it("replaces only the named parameters, keeping the others byte for byte", () => {
    expect(appendQuery("https://lp.test/?cid=old&keep=a+b&clickId=zzz", "cid=3&clickId=abc", ["cid", "clickId"])).toBe(
      "https://lp.test/?keep=a+b&cid=3&clickId=abc",
    );
  });

  it("makes a header-safe URL from Unicode hosts and paths", () => {
    expect(appendQuery("https://bücher.example/seite ä", "a=1")).toBe("https://xn--bcher-kva.example/seite%20%C3%A4?a=1");
  });

  it("refuses anything that is not an absolute http(s) URL", () => {
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "//evil.example", "/relative", "ftp://files.test/x", ""]) {
      expect(appendQuery(bad, "a=1")).toBeNull();
    }
  });
});

describe("offer templates", () => {
  it("fills every token, URL-encoded", () => {
    const template = TEMPLATE_TOKENS.map((t) => `${t}={${t}}`).join("&");
    const filled = fillTemplate(template, {
      clickId: "c-1",
      campaign: "17 99",
      adGroup: "a&b=c",
      creative: "100%",
      placement: "#feed",
      campaignName: "Été ☀️",
      adGroupName: "x/y?z",
      creativeName: "+plus",
      mediaBuyer: "Ana B",
      spark: "k3x9",
    });
    expect(filled).toBe(
      "clickId=c-1&campaign=17%2099&adGroup=a%26b%3Dc&creative=100%25&placement=%23feed" +
        "&campaignName=%C3%89t%C3%A9%20%E2%98%80%EF%B8%8F&adGroupName=x%2Fy%3Fz&creativeName=%2Bplus&mediaBuyer=Ana%20B&spark=k3x9",
    );
    const params = new URLSearchParams(filled);
    expect(params.get("adGroup")).toBe("a&b=c");
    expect(params.get("campaignName")).toBe("Été ☀️");
  });

  it("turns missing values into empty ones", () => {
    expect(fillTemplate(DEFAULT_UTM_TEMPLATE, { ...noValues, clickId: "abc" })).toBe("sub1=&sub2=abc&sub3=&sub4=&sub5=");
  });

  it("fills a value that is still an unfilled __MACRO__ as empty (a click recorded before that rule)", () => {
    expect(
      fillTemplate(DEFAULT_UTM_TEMPLATE, {
        ...noValues,
        clickId: "abc",
        adGroup: "__AID__",
        creative: "123",
      }),
    ).toBe("sub1=&sub2=abc&sub3=&sub4=&sub5=123");
  });

  it("names unknown tokens and refuses stray braces, spaces and #", () => {
    expect(templateProblems(DEFAULT_UTM_TEMPLATE)).toEqual([]);
    const [unknown] = templateProblems("a={clickid}&b={foo}&c={foo}");
    expect(unknown).toContain("Unknown tokens {clickid}, {foo}.");
    expect(unknown).toContain("{clickId}");
    expect(templateProblems("a={clickId")).toEqual(["Braces must enclose a token, like {clickId}"]);
    expect(templateProblems("a=1 b=2")).toEqual(["The UTM template cannot contain spaces"]);
    expect(templateProblems("a=1#x")).toEqual(["The UTM template cannot contain #"]);
  });

  it("stores a template without its leading ? or &", () => {
    const parsed = createOfferSchema.parse({ name: "O", url: "https://offer.test", utmTemplate: "  ?&sub1={clickId}  " });
    expect(parsed.utmTemplate).toBe("sub1={clickId}");
  });

  it("accepts only http(s) offer URLs", () => {
    const urlError = (url: string) => createOfferSchema.safeParse({ name: "O", url, utmTemplate: "a=1" }).error?.issues[0]?.message;
    expect(urlError("https://offer.test/x?y=1")).toBeUndefined();
    expect(urlError("javascript:alert(1)")).toBe("URL must start with http:// or https://");
    expect(urlError("JaVaScRiPt:alert(1)")).toBe("URL must start with http:// or https://");
    expect(urlError("https://good.test@evil.example/")).toBe("URL must not contain a user name or password");
    expect(urlError("https://offer.test/a b")).toBe("URL cannot contain spaces or control characters");
    expect(urlError("https://")).toBe("URL is not a valid web address");
    expect(urlError(`https://offer.test/${"a".repeat(2100)}`)).toBe("URL must be at most 2048 characters");
  });
});

describe("campaign links (docs/product-rules.md)", () => {
  const settings = { redirect_domain: "https://go.example.com", global_exit_domain: "" };
  const active = { domain: "brand.xyz", subdomain: "trk", status: "active" as const };

  it("uses the campaign's active domain, else the redirect_domain setting", () => {
    expect(redirectBase(active, settings)).toBe("https://trk.brand.xyz");
    expect(redirectBase({ ...active, status: "dns_failed" }, settings)).toBe("https://go.example.com");
    expect(redirectBase({ ...active, subdomain: null }, settings)).toBe("https://go.example.com");
    expect(redirectBase(null, { ...settings, redirect_domain: "go2.example.com" })).toBe("https://go2.example.com");
    expect(redirectBase(null, { ...settings, redirect_domain: "" })).toBeNull();
  });

  it("exits through global_exit_domain (its /click removed), else the redirect base", () => {
    expect(exitBase("https://trk.brand.xyz", settings)).toBe("https://trk.brand.xyz");
    expect(exitBase("https://trk.brand.xyz", { ...settings, global_exit_domain: "exit.example.com/click" })).toBe("https://exit.example.com");
    expect(exitBase(null, settings)).toBeNull();
  });

  it("builds the tracking URL with the TikTok macros, the exit URL and the script tag", () => {
    const links = campaignLinks({ id: 42, offerId: 7 }, active, settings);
    expect(links.trackingUrl).toBe(`https://trk.brand.xyz/r/42?${TRACKING_QUERY}`);
    expect(links.trackingUrl).toContain("cid=__CAMPAIGN_ID__&ad=__AID__&cr=__CID__&plc=__PLACEMENT__");
    expect(links.exitUrl).toBe("https://trk.brand.xyz/click");
    expect(links.exitScriptUrl).toBe("https://trk.brand.xyz/exit-tracker.js");
    expect(links.exitScript).toBe('<script src="https://trk.brand.xyz/exit-tracker.js" async></script>');
  });

  it("has no exit script without an offer, and no links at all without a base", () => {
    expect(campaignLinks({ id: 1, offerId: null }, null, settings).exitScript).toBeNull();
    expect(campaignLinks({ id: 1, offerId: 3 }, null, { redirect_domain: "", global_exit_domain: "" })).toEqual({
      trackingUrl: null,
      exitUrl: null,
      exitScriptUrl: null,
      exitScript: null,
    });
  });
});

describe("whether an offer template can be attributed", () => {
  it("takes the default, and any template whose sub2 is {clickId} once", () => {
    expect(attributionProblem(DEFAULT_UTM_TEMPLATE)).toBeNull();
    expect(attributionProblem("aff=7&sub2={clickId}")).toBeNull();
    expect(attributionProblem("SUB2={clickId}&sub1=ana")).toBeNull();
  });

  it("says what breaks, in the Stats' words, when sub2 is not the click id", () => {
    expect(attributionProblem(OLD_DEFAULT_UTM_TEMPLATE)).toBe(
      'Revenue from this offer will show as "Direct", not under its campaign: sub2 carries {campaign} instead of the click id ({clickId}). ' +
        "Click ids will show as media buyers (sub1). Ad group ids will show as sparks (sub3).",
    );
    expect(attributionProblem("aff=7&s2={clickId}")).toBe(
      'Revenue from this offer will show as "Direct", not under its campaign: the template sends no sub2, where the click id ({clickId}) must go.',
    );
    expect(attributionProblem("sub2=&sub1=ana")).toContain("sub2 carries nothing instead of the click id");
    expect(attributionProblem("sub2={clickId}&sub2=x")).toContain("sub2 more than once");
    expect(attributionProblem("sub2=c{clickId}")).toContain("sub2 carries c{clickId} instead");
  });

  it("fixes a template to an attributable one, keeping the rest where it makes sense", () => {
    const cases: [string, string][] = [
      [OLD_DEFAULT_UTM_TEMPLATE, DEFAULT_UTM_TEMPLATE],
      // An ad value pushed out of sub2 or sub3 moves to a free sub4/sub5; literals and other parameters stay.
      ["sub1=ana&sub2={campaign}&sub3={adGroup}&aff=7", "sub1=ana&sub2={clickId}&sub3={spark}&aff=7&sub4={campaign}&sub5={adGroup}"],
      ["sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}", "sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={creative}&sub5={campaign}"],
      ["aff=7&flag", "aff=7&flag&sub2={clickId}"],
      ["sub1={mediaBuyer}&sub3={spark}", "sub1={mediaBuyer}&sub2={clickId}&sub3={spark}"],
      ["sub3={spark}&sub4=x", "sub2={clickId}&sub3={spark}&sub4=x"],
      ["sub2={clickId}&sub2={campaign}", "sub2={clickId}&sub4={campaign}"],
    ];
    for (const [broken, fixed] of cases) {
      expect(attributableTemplate(broken), broken).toBe(fixed);
      expect(attributionProblem(fixed), fixed).toBeNull();
      expect(templateProblems(fixed), fixed).toEqual([]);
    }
  });
});
