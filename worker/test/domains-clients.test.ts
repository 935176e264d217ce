import { beforeEach, describe, expect, it } from "vitest";
import { CloudflareError, createCloudflare } from "../src/domains/cloudflare";
import { cloudflareSetup, namecheapSetup, type NamecheapConfig } from "../src/domains/config";
import { createNamecheap, NamecheapError, namecheapPhone, readAnswer, resetNamecheapState } from "../src/domains/namecheap";
import { judgePrice } from "../src/domains/price-rule";
import { readHttpResponse, socks5Request, type ConnectFn, type TcpSocket } from "../src/domains/socks5";
import { attr, child, descendants, parseXml, XmlError } from "../src/domains/xml";
import { domainBodySchema, subdomainSchema } from "../src/schemas/domains";
import { CLOUDFLARE_URL, createDomainFakes, domainEnv, NAMECHEAP_URL, RELAY_KEY, RELAY_URL, type DomainFakes } from "./domain-helpers";

beforeEach(() => resetNamecheapState());

const namecheapWith = (fakes: DomainFakes, overrides: Parameters<typeof domainEnv>[0] = {}, timeoutMs = 300) => {
  const { config, problems } = namecheapSetup(domainEnv(overrides));
  expect(problems).toEqual([]);
  return createNamecheap(config!, { fetch: fakes.fetch, timeoutMs });
};

const cloudflareWith = (fakes: DomainFakes, waits: number[] = []) =>
  createCloudflare(cloudflareSetup(domainEnv()).config!, { fetch: fakes.fetch, timeoutMs: 300, sleep: async (ms) => void waits.push(ms) });

async function failureOf<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as E;
}

describe("XML reader", () => {
  it("finds elements and attributes without regard to case, and expands entities, CDATA and character references", () => {
    const doc = parseXml(`<?xml version="1.0" encoding="utf-8"?>
      <!-- Namecheap -->
      <ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">
        <commandresponse TYPE='namecheap.domains.check'>
          <DomainCheckResult Domain="a&amp;b.xyz" available="TRUE" Description="caf&#233; &#x2603;"/>
          <Note><![CDATA[<raw> & text]]></Note>
        </commandresponse>
      </ApiResponse>`);
    expect(attr(doc, "status")).toBe("OK");
    const result = descendants(doc, "domainCHECKresult")[0];
    expect(attr(result, "Domain")).toBe("a&b.xyz");
    expect(attr(result, "AVAILABLE")).toBe("TRUE");
    expect(attr(result, "description")).toBe("café ☃");
    expect(child(child(doc, "CommandResponse"), "note")?.text).toBe("<raw> & text");
  });

  it.each([
    ["a DOCTYPE (entity expansion)", `<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>`],
    ["an unknown entity", "<x>&nbsp;</x>"],
    ["mismatched tags", "<a><b></a></b>"],
    ["an unclosed element", "<a><b>"],
    ["two roots", "<a/><b/>"],
    ["text outside the root", "hello"],
    ["a malformed attribute", "<a b=c/>"],
  ])("refuses %s", (_name, source) => {
    expect(() => parseXml(source)).toThrow(XmlError);
  });
});

describe("domain and subdomain rules", () => {
  const domainError = (domain: unknown) => {
    const r = domainBodySchema.safeParse({ domain });
    return r.success ? null : r.error.issues.map((i) => i.message);
  };
  it("accepts an .xyz name (trimmed, lower-cased) and says why others are refused", () => {
    expect(domainBodySchema.parse({ domain: "  BrightDeals.XYZ " })).toEqual({ domain: "brightdeals.xyz" });
    expect(domainError("")).toEqual(["Domain name is required"]);
    expect(domainError(undefined)).toEqual(["Domain name is required"]);
    expect(domainError("bright deals.xyz")).toEqual(["Invalid domain format (e.g., example.com, example.co.uk)"]);
    expect(domainError("-bright.xyz")).toEqual(["Invalid domain format (e.g., example.com, example.co.uk)"]);
    expect(domainError("bright.x1")).toEqual(["Invalid domain format (e.g., example.com, example.co.uk)"]);
    expect(domainError("brightdeals.com")).toEqual(["Only .xyz domains are supported"]);
    expect(domainError("trk.brightdeals.xyz")?.[0]).toMatch(/^Enter the domain itself/);
  });
  it("checks subdomains with the product's texts", () => {
    expect(subdomainSchema.parse(" Go ")).toBe("go");
    expect(subdomainSchema.safeParse("").error?.issues[0]?.message).toBe("Subdomain is required");
    for (const bad of ["trk.go", "tr_k", "-trk", "trk-", "a".repeat(64), "trk!"]) {
      expect(subdomainSchema.safeParse(bad).error?.issues[0]?.message).toBe("Invalid subdomain format (e.g., trk, go, click)");
    }
  });
});

describe("configuration", () => {
  it("names every missing or malformed setting, and accepts the three routes", () => {
    const none = namecheapSetup(domainEnv({ NAMECHEAP_API_USER: "", NAMECHEAP_API_KEY: undefined, NAMECHEAP_CLIENT_IP: "2001:db8::1" }));
    expect(none.problems).toEqual([
      "NAMECHEAP_API_USER is not set",
      "NAMECHEAP_API_KEY is not set",
      "NAMECHEAP_CLIENT_IP must be the whitelisted IPv4 address, like 203.0.113.7",
    ]);
    expect(namecheapSetup(domainEnv({ NAMECHEAP_API_URL: "http://api.namecheap.com/xml.response" })).problems).toEqual([
      "NAMECHEAP_API_URL must be an https:// address (plain http only for a local stand-in on 127.0.0.1)",
    ]);
    expect(namecheapSetup(domainEnv({ NAMECHEAP_PROXY: "https://relay.example.com" })).problems).toEqual([
      "NAMECHEAP_RELAY_KEY is not set (the HTTPS relay in NAMECHEAP_PROXY needs it)",
    ]);
    expect(namecheapSetup(domainEnv({ NAMECHEAP_PROXY: "ftp://x" })).problems[0]).toMatch(/^NAMECHEAP_PROXY must be empty/);
    const relay = namecheapSetup(domainEnv({ NAMECHEAP_PROXY: "https://relay.example.com", NAMECHEAP_RELAY_KEY: "k" })).config!.route;
    expect(relay).toMatchObject({ mode: "relay", key: "k" });
    expect(relay.mode === "relay" && relay.url.toString()).toBe("https://relay.example.com/xml.response");
    expect(namecheapSetup(domainEnv({ NAMECHEAP_PROXY: "socks5://u%40x:p%3Ass@10.0.0.5:1081" })).config!.route).toEqual({
      mode: "socks5",
      host: "10.0.0.5",
      port: 1081,
      username: "u@x",
      password: "p:ss",
    });
    expect(namecheapSetup(domainEnv()).config!.userName).toBe("trackyard");
    expect(cloudflareSetup(domainEnv({ CLOUDFLARE_API_TOKEN: "", CLOUDFLARE_ACCOUNT_ID: "abc" })).problems).toEqual([
      "CLOUDFLARE_API_TOKEN is not set",
      "CLOUDFLARE_ACCOUNT_ID must be the 32-character account id (dashboard → Workers & Pages → Account ID)",
    ]);
    expect(cloudflareSetup(domainEnv()).config!.workerName).toBe("trackyard");
  });
});

describe("Namecheap client", () => {
  it("sends every command as a POST form with the key in the body, never in the URL", async () => {
    const fakes = createDomainFakes();
    const nc = namecheapWith(fakes);
    await nc.check("brightdeals.xyz");
    await nc.balance();
    expect(fakes.namecheap.state.requests.map((r) => [r.command, r.method, r.keyInUrl])).toEqual([
      ["namecheap.domains.check", "POST", false],
      ["namecheap.users.getBalances", "POST", false],
    ]);
    expect(fakes.calls.every((c) => !/apikey/i.test(c))).toBe(true);
  });

  it("reads the live getPricing shape (lower-case names, the action as category) and adds the ICANN fee, cached an hour", async () => {
    const fakes = createDomainFakes({ namecheap: { prices: { register: "1.16", renew: "13.48", icann: "0.20" } } });
    const nc = namecheapWith(fakes);
    expect(await nc.registerPrice("xyz")).toBe(136);
    expect(await nc.renewPrice("xyz")).toBe(1368);
    expect(await nc.registerPrice("xyz")).toBe(136);
    expect(fakes.namecheap.commandsCount("namecheap.users.getPricing")).toBe(2);
    fakes.namecheap.state.prices.register = "9.99";
    expect(await nc.registerPrice("xyz", { fresh: true })).toBe(1019);
  });

  it("takes a missing or zero price as unknown, never free", async () => {
    const fakes = createDomainFakes({ namecheap: { prices: { register: "0.00", renew: "0", icann: "0.20" } } });
    expect(await namecheapWith(fakes).registerPrice("xyz")).toBeNull();
  });

  it.each([
    ["IP not whitelisted", { callerIp: "198.51.100.23" }, "whitelist this IP: 198.51.100.23", "1011150"],
    ["a bad key", { apiKey: "another-key" }, "NAMECHEAP_API_KEY is missing or wrong", "1011102"],
    ["a locked account", { locked: true }, "locked or disabled", "1017101"],
  ] as const)("turns %s into what to do", async (_name, options, text, number) => {
    const fakes = createDomainFakes({ namecheap: options });
    const err = await failureOf(namecheapWith(fakes).balance(), NamecheapError);
    expect(err.message).toContain(text);
    expect(err.details).toMatchObject({ answered: true, number });
    if (number === "1011150") expect(err.details.egressIp).toBe("198.51.100.23");
  });

  it("marks timeouts, 5xx and unreadable answers as unclear (not answered)", async () => {
    const fakes = createDomainFakes();
    const nc = namecheapWith(fakes, {}, 50);
    fakes.namecheap.failNext({ kind: "timeout" }, { kind: "http", status: 503 }, { kind: "garbage" });
    for (const expected of ["did not answer in time", "HTTP 503", "not its XML"]) {
      const err = await failureOf(nc.balance(), NamecheapError);
      expect(err.message).toContain(expected);
      expect(err.details.answered).toBe(false);
    }
  });

  it("reads the default address-book entry as the four contacts, and says what to set up without one", async () => {
    const fakes = createDomainFakes({
      namecheap: {
        addresses: [
          { id: 1, name: "Old office", isDefault: false, fields: { FirstName: "Old" } },
          {
            id: 2,
            name: "Head office",
            isDefault: true,
            fields: {
              FirstName: "Dana",
              LastName: "Reyes",
              Address1: "1 Main St",
              City: "Austin",
              StateProvince: "TX",
              Zip: "78701",
              Country: "US",
              Phone: "1.5125550100",
              EmailAddress: "d@x.test",
            },
          },
        ],
      },
    });
    const contact = await namecheapWith(fakes).defaultContact();
    expect(contact).toMatchObject({ FirstName: "Dana", PostalCode: "78701", Phone: "+1.5125550100" });
    fakes.namecheap.state.addresses = [{ id: 3, name: "Only", isDefault: false, fields: {} }];
    expect((await failureOf(namecheapWith(fakes).defaultContact(), NamecheapError)).message).toContain("Set as default");
    fakes.namecheap.state.addresses = [];
    expect((await failureOf(namecheapWith(fakes).defaultContact(), NamecheapError)).message).toContain("has no address");
    fakes.namecheap.state.addresses = [{ id: 4, name: "Half", isDefault: true, fields: { FirstName: "A", LastName: "B" } }];
    expect((await failureOf(namecheapWith(fakes).defaultContact(), NamecheapError)).message).toBe(
      "The default address 'Half' in your Namecheap address book lacks Address1, City, StateProvince, PostalCode, Country, Phone, EmailAddress. Complete it in Namecheap → Profile → Address Book, then purchase again.",
    );
    expect(namecheapPhone("+44.2071234567")).toBe("+44.2071234567");
  });

  it("reaches Namecheap through the HTTPS relay with its key, and reports the relay's IP", async () => {
    const fakes = createDomainFakes();
    const nc = namecheapWith(fakes, { NAMECHEAP_PROXY: RELAY_URL, NAMECHEAP_RELAY_KEY: RELAY_KEY });
    expect(await nc.balance()).toEqual({ currency: "USD", available: "250.00" });
    expect(await nc.egressIp()).toBe("198.51.100.20");
    expect(fakes.relay.state.forwarded).toBe(1);
    const wrongKey = namecheapWith(fakes, { NAMECHEAP_PROXY: RELAY_URL, NAMECHEAP_RELAY_KEY: "wrong" });
    const err = await failureOf(wrongKey.balance(), NamecheapError);
    expect(err.message).toContain("NAMECHEAP_RELAY_KEY does not match");
    expect(err.details.answered).toBe(true);
  });

  it("parses the ERROR envelope whatever the case of its names", () => {
    const err = (() => {
      try {
        readAnswer(`<apiresponse status="error"><errors><error number="2019166">Domain not found</error></errors></apiresponse>`);
      } catch (e) {
        return e as NamecheapError;
      }
    })();
    expect(err?.details.number).toBe("2019166");
    expect(err?.message).toBe("Namecheap error 2019166: Domain not found");
  });
});

describe("price rule", () => {
  const base = {
    domain: "a.xyz",
    available: true,
    problem: null,
    premium: false,
    premiumRegistrationCents: 0,
    premiumRenewalCents: 0,
    icannFeeCents: 0,
    eapFeeCents: 0,
  };
  it("refuses taken, Early Access, unknown-price, above-max and premium-above-max names, with the reason", () => {
    expect(judgePrice({ ...base, available: false }, 136, 500)).toMatchObject({ ok: false, refusal: "taken" });
    expect(judgePrice({ ...base, eapFeeCents: 5000 }, 136, 500)).toMatchObject({ ok: false, refusal: "early_access" });
    expect(judgePrice(base, null, 500)).toMatchObject({ ok: false, refusal: "price_unknown" });
    expect(judgePrice(base, 1298, 500)).toMatchObject({
      ok: false,
      refusal: "above_max",
      message: "a.xyz costs $12.98, above your Maximum Domain Price of $5.00 (Settings).",
    });
    expect(judgePrice({ ...base, premium: true, premiumRegistrationCents: 45000, icannFeeCents: 20 }, 136, 500)).toMatchObject({
      ok: false,
      priceCents: 45020,
      message: "a.xyz is a premium name at $450.20, above your Maximum Domain Price of $5.00 (Settings).",
    });
    expect(judgePrice({ ...base, premium: true, premiumRegistrationCents: 399, icannFeeCents: 20 }, null, 500)).toMatchObject({ ok: true, priceCents: 419 });
    expect(judgePrice(base, 500, 500)).toMatchObject({ ok: true, message: "a.xyz is available: $5.00 (first year)." });
  });
});

describe("Cloudflare client", () => {
  it("reuses a zone that already exists in the account (1061)", async () => {
    const fakes = createDomainFakes();
    const existing = fakes.cloudflare.addZone("reuse.xyz");
    const { zone, reused } = await cloudflareWith(fakes).createZone("reuse.xyz");
    expect({ id: zone.id, reused }).toEqual({ id: existing.id, reused: true });
    expect(fakes.cloudflare.state.zones.size).toBe(1);
  });

  it("says when the zone belongs to another account", async () => {
    const fakes = createDomainFakes();
    fakes.cloudflare.addZone("elsewhere.xyz", { accountId: "ffffffffffffffffffffffffffffffff" });
    expect((await failureOf(cloudflareWith(fakes).createZone("elsewhere.xyz"), CloudflareError)).message).toContain("not in this account");
  });

  it("waits as long as Retry-After says on 429, and tries again", async () => {
    const fakes = createDomainFakes();
    const waits: number[] = [];
    fakes.cloudflare.failNext({ match: "POST /zones", kind: "status", status: 429, retryAfter: "7" }, { match: "POST /zones", kind: "status", status: 429 });
    const { zone } = await cloudflareWith(fakes, waits).createZone("patient.xyz");
    expect(zone.status).toBe("pending");
    expect(waits).toEqual([7000, 5000]);
    expect(fakes.cloudflare.count("POST", "/zones")).toBe(3);
  });

  it("retries 5xx, internal error 10013 and timeouts, then reports them as retryable", async () => {
    const fakes = createDomainFakes();
    fakes.cloudflare.failNext({ kind: "status", status: 500, errors: [{ code: 10013, message: "Internal error" }] }, { kind: "timeout" });
    expect((await cloudflareWith(fakes).createZone("flaky.xyz")).zone.name).toBe("flaky.xyz");
    fakes.cloudflare.failNext({ kind: "timeout" }, { kind: "timeout" }, { kind: "timeout" });
    const err = await failureOf(cloudflareWith(fakes).findZone("flaky.xyz"), CloudflareError);
    expect(err.message).toContain("did not answer in time");
    expect(err.retryable).toBe(true);
  });

  it.each([
    ["Zone Edit", (cf: ReturnType<typeof cloudflareWith>) => cf.createZone("perm.xyz")],
    ["Zone Read", (cf: ReturnType<typeof cloudflareWith>) => cf.findZone("perm.xyz")],
    ["Workers Scripts Edit", (cf: ReturnType<typeof cloudflareWith>) => cf.workerDomains({ service: "trackyard" })],
  ] as const)("names the missing %s permission", async (permission, call) => {
    const fakes = createDomainFakes({
      cloudflare: { permissions: ["Zone Read", "Zone Edit", "DNS Edit", "Workers Scripts Edit"].filter((p) => p !== permission) as never },
    });
    const err = await failureOf(call(cloudflareWith(fakes)), CloudflareError);
    expect(err.message).toContain(`lacks the ${permission} permission`);
    expect(err.status).toBe(403);
  });

  it("says a wrong token is wrong", async () => {
    const fakes = createDomainFakes({ cloudflare: { token: "other" } });
    expect((await failureOf(cloudflareWith(fakes).findZone("x.xyz"), CloudflareError)).message).toContain("rejected CLOUDFLARE_API_TOKEN");
  });
});

// ---------------------------------------------------------------------------------------------
// SOCKS5: the protocol against an in-memory peer standing in for the proxy and the target.
// ---------------------------------------------------------------------------------------------
interface PeerLog {
  proxy?: { hostname: string; port: number };
  greeting?: number[];
  credentials?: [string, string];
  target?: string;
  tlsName?: string | null;
}

function socksPeer(options: { user: string; pass: string; reply?: number; boundType?: 1 | 3 | 4; upstream: (request: Request) => Promise<Response> }) {
  const log: PeerLog = {};
  const decoder = new TextDecoder();
  const connect: ConnectFn = (address) => {
    log.proxy = address;
    const up = new TransformStream<Uint8Array, Uint8Array>();
    const down = new TransformStream<Uint8Array, Uint8Array>();
    const socket: TcpSocket = {
      readable: down.readable,
      writable: up.writable,
      close: async () => {},
      startTls: (o) => {
        log.tlsName = o?.expectedServerHostname ?? null;
        return socket;
      },
    };
    void (async () => {
      const reader = up.readable.getReader();
      const writer = down.writable.getWriter();
      let buffer = new Uint8Array(0);
      const need = async (n: number) => {
        while (buffer.length < n) {
          const { value, done } = await reader.read();
          if (done) throw new Error("client closed");
          buffer = Uint8Array.from([...buffer, ...value]);
        }
        const out = buffer.slice(0, n);
        buffer = buffer.slice(n);
        return out;
      };
      const [, count] = await need(2);
      log.greeting = [...(await need(count!))];
      await writer.write(Uint8Array.of(5, 2));
      const [, ulen] = await need(2);
      const user = decoder.decode(await need(ulen!));
      const [plen] = await need(1);
      const pass = decoder.decode(await need(plen!));
      log.credentials = [user, pass];
      const ok = user === options.user && pass === options.pass;
      await writer.write(Uint8Array.of(1, ok ? 0 : 1));
      if (!ok) return writer.close();
      const [, , , type] = await need(4);
      const host = type === 3 ? decoder.decode(await need((await need(1))[0]!)) : (await need(4)).join(".");
      const port = await need(2);
      log.target = `${host}:${(port[0]! << 8) | port[1]!}`;
      const bound = options.boundType ?? 3;
      const address = bound === 1 ? [10, 0, 0, 1] : bound === 4 ? new Array(16).fill(0) : [9, ...new TextEncoder().encode("proxy.lan")];
      await writer.write(Uint8Array.of(5, options.reply ?? 0, 0, bound, ...address, 4, 56));
      if (options.reply) return writer.close();
      // The HTTP request: headers, then the Content-Length body.
      let head = "";
      while (!head.endsWith("\r\n\r\n")) head += decoder.decode(await need(1));
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      const body = length ? decoder.decode(await need(length)) : undefined;
      const [requestLine, ...lines] = head.trim().split("\r\n");
      const [method, path] = requestLine!.split(" ");
      const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()] as [string, string]));
      const response = await options.upstream(new Request(`https://${headers.get("host")}${path}`, { method, headers, body }));
      const text = new TextEncoder().encode(await response.text());
      // Chunked, in two chunks, to read it the hard way.
      const half = Math.floor(text.length / 2);
      const chunk = (b: Uint8Array) => [...new TextEncoder().encode(`${b.length.toString(16)}\r\n`), ...b, 13, 10];
      await writer.write(
        Uint8Array.from([
          ...new TextEncoder().encode(`HTTP/1.1 ${response.status} OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n`),
          ...chunk(text.slice(0, half)),
          ...chunk(text.slice(half)),
          ...new TextEncoder().encode("0\r\n\r\n"),
        ]),
      );
      await writer.close();
    })().catch(() => {});
    return socket;
  };
  return { connect, log };
}

describe("SOCKS5 route (experimental)", () => {
  it("does the RFC 1928/1929 handshake, reads the whole bound address, then TLS to the target and HTTP", async () => {
    const fakes = createDomainFakes();
    for (const boundType of [1, 3, 4] as const) {
      resetNamecheapState();
      const peer = socksPeer({ user: "ops", pass: "s3cret", boundType, upstream: fakes.namecheap.handle });
      const { config } = namecheapSetup(
        domainEnv({ NAMECHEAP_PROXY: "socks5://ops:s3cret@proxy.example.net:1080", NAMECHEAP_API_URL: "https://api.namecheap.com/xml.response" }),
      );
      const nc = createNamecheap(config as NamecheapConfig, { connect: peer.connect, timeoutMs: 2000 });
      expect(await nc.balance()).toEqual({ currency: "USD", available: "250.00" });
      expect(peer.log).toEqual({
        proxy: { hostname: "proxy.example.net", port: 1080 },
        greeting: [0, 2],
        credentials: ["ops", "s3cret"],
        target: "api.namecheap.com:443",
        tlsName: "api.namecheap.com",
      });
    }
  });

  it("says when the proxy refuses the credentials or cannot reach the target, as nothing sent", async () => {
    const fakes = createDomainFakes();
    const target = new URL("https://api.namecheap.com/xml.response");
    const proxy = { host: "proxy.example.net", port: 1080, username: "ops", password: "wrong" };
    const refused = socksPeer({ user: "ops", pass: "s3cret", upstream: fakes.namecheap.handle });
    await expect(socks5Request(refused.connect, proxy, { method: "GET", url: target })).rejects.toMatchObject({
      beforeRequest: true,
      message: expect.stringContaining("refused the username or password"),
    });
    const unreachable = socksPeer({ user: "ops", pass: "wrong", reply: 4, upstream: fakes.namecheap.handle });
    await expect(socks5Request(unreachable.connect, proxy, { method: "GET", url: target })).rejects.toMatchObject({
      beforeRequest: true,
      message: expect.stringContaining("host unreachable"),
    });
  });

  it("reads Content-Length and close-delimited HTTP responses", async () => {
    const stream = (text: string) => new Response(text).body!;
    expect(await readHttpResponse(stream("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, ignored"))).toMatchObject({ status: 200, body: "hello" });
    expect(await readHttpResponse(stream("HTTP/1.0 502 Bad Gateway\r\nServer: x\r\n\r\nall of it"))).toMatchObject({ status: 502, body: "all of it" });
  });
});

describe("fakes", () => {
  it("answer like the documented shapes", async () => {
    const fakes = createDomainFakes();
    const res = await fakes.fetch(
      `${NAMECHEAP_URL}?ApiUser=trackyard&ApiKey=namecheap-test-key&UserName=trackyard&ClientIp=203.0.113.7&Command=namecheap.domains.check&DomainList=taken.xyz`,
    );
    const doc = parseXml(await res.text());
    expect(attr(descendants(doc, "DomainCheckResult")[0], "Available")).toBe("false");
    const cf = await fakes.fetch(`${CLOUDFLARE_URL}/zones?name=x.xyz`, { headers: { authorization: "Bearer cloudflare-test-token" } });
    expect(await cf.json()).toMatchObject({ success: true, errors: [], result: [], result_info: { count: 0 } });
  });
});
