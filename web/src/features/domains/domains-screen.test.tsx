import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { pollInterval, type Domain } from "./api";
import DomainsScreen from "./domains-screen";

const domain = (over: Partial<Domain>): Domain => ({
  id: 1,
  domain: "a.xyz",
  subdomain: null,
  host: null,
  status: "purchased",
  createdAt: "2026-11-20T10:00:00.000Z",
  purchasedAt: "2026-11-20T10:00:01.000Z",
  configuredAt: null,
  purchaseOrderId: "80000001",
  purchaseAmount: "1.36",
  errorMessage: null,
  cloudflareZoneId: null,
  zoneStatus: null,
  nameservers: [],
  busy: false,
  note: null,
  ...over,
});

const ROWS: Domain[] = [
  domain({ id: 1, domain: "bought.xyz" }),
  domain({
    id: 2,
    domain: "waiting.xyz",
    status: "configuring_dns",
    subdomain: "trk",
    host: "trk.waiting.xyz",
    cloudflareZoneId: "z2",
    note: "Waiting for Cloudflare to activate the zone (checked every 15 minutes).",
  }),
  domain({
    id: 3,
    domain: "broken.xyz",
    status: "dns_failed",
    subdomain: "go",
    host: "go.broken.xyz",
    errorMessage: "The Cloudflare API token lacks the Zone Edit permission.",
  }),
  domain({ id: 4, domain: "live.xyz", status: "active", subdomain: "trk", host: "trk.live.xyz", cloudflareZoneId: "z4" }),
  domain({ id: 5, domain: "lost.xyz", status: "failed", purchaseOrderId: null, errorMessage: "Namecheap error 2033409: Insufficient funds" }),
  domain({ id: 6, domain: "odd.xyz", status: "mystery" as Domain["status"] }),
];

const setup = (namecheap: string[] = [], cloudflare: string[] = []) => ({
  namecheap: { configured: namecheap.length === 0, problems: namecheap, route: "direct", mode: "direct", apiHost: "api.namecheap.com", sandbox: false },
  cloudflare: { configured: cloudflare.length === 0, problems: cloudflare, workerName: "trackyard" },
  maxPrice: "5.00",
});

/** The API as the screen calls it; `answers` adds the answers of the steps a test runs, by path. */
function stubApi(rows: Domain[], setupBody = setup(), answers: Record<string, unknown> = {}) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, _init?: RequestInit) => {
    const path = new URL(String(input), "http://localhost").pathname;
    if (path === "/api/domains/setup") return Response.json(setupBody);
    if (path === "/api/domains") return Response.json(rows);
    if (path in answers) return Response.json(answers[path]);
    return Response.json({ error: "unexpected" }, { status: 500 });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

const render = () =>
  renderWithUser(
    <MemoryRouter>
      <DomainsScreen />
      <Toaster />
    </MemoryRouter>,
    admin(),
  );
const callsTo = (fetchMock: ReturnType<typeof stubApi>, path: string) =>
  fetchMock.mock.calls.filter(([i]) => new URL(String(i), "http://localhost").pathname === path).map(([, init]) => init);
const rowOf = (name: string) => screen.getByText(name).closest("tr") as HTMLElement;
const buttons = (name: string) =>
  within(rowOf(name))
    .getAllByRole("button")
    .map((b) => b.getAttribute("aria-label") ?? b.textContent);

describe("Domains screen", () => {
  beforeEach(() => vi.useRealTimers());
  afterEach(() => vi.unstubAllGlobals());

  it("offers each status its actions: Configure DNS, Retry Configuration, Migrate to Workers, Update NS with a zone, Delete always", async () => {
    stubApi(ROWS);
    render();
    await screen.findByText("bought.xyz");
    expect(buttons("bought.xyz")).toEqual(["Configure DNS", "Delete bought.xyz"]);
    expect(buttons("waiting.xyz")).toEqual(["Retry Configuration", "Update NS", "Delete waiting.xyz"]);
    expect(buttons("broken.xyz")).toEqual(["Retry Configuration", "Delete broken.xyz"]);
    expect(buttons("live.xyz")).toEqual(["Migrate to Workers", "Update NS", "Delete live.xyz"]);
    expect(buttons("lost.xyz")).toEqual(["Delete lost.xyz"]);
    // Badges, the unknown status shown as Failed, errors in their column, the waiting note.
    expect(within(rowOf("waiting.xyz")).getByText("Configuring DNS")).toBeTruthy();
    expect(within(rowOf("waiting.xyz")).getByText(/Waiting for Cloudflare/)).toBeTruthy();
    expect(within(rowOf("broken.xyz")).getByText("DNS Failed")).toBeTruthy();
    expect(within(rowOf("broken.xyz")).getByText(/lacks the Zone Edit permission/)).toBeTruthy();
    expect(within(rowOf("live.xyz")).getByText("Active")).toBeTruthy();
    expect(within(rowOf("live.xyz")).getByText("trk.live.xyz")).toBeTruthy();
    expect(within(rowOf("odd.xyz")).getByText("Failed")).toBeTruthy();
    expect(within(rowOf("bought.xyz")).getByText("80000001")).toBeTruthy();
  });

  it("shows the empty state", async () => {
    stubApi([]);
    render();
    expect(await screen.findByText("No domains purchased yet")).toBeTruthy();
  });

  it("says once what is missing, disables what needs it, and sends nothing that would fail", async () => {
    const fetchMock = stubApi([domain({ domain: "bought.xyz" })], setup(["NAMECHEAP_API_KEY is not set"], ["CLOUDFLARE_API_TOKEN is not set"]));
    render();
    expect(await screen.findByText("Domain automation is not fully set up")).toBeTruthy();
    expect(screen.getByText("NAMECHEAP_API_KEY is not set")).toBeTruthy();
    expect(screen.getByText("CLOUDFLARE_API_TOKEN is not set")).toBeTruthy();
    await screen.findByText("bought.xyz");
    expect((screen.getByRole("button", { name: "Check Availability" }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Test Proxy" }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(rowOf("bought.xyz")).getByRole("button", { name: "Configure DNS" }) as HTMLButtonElement).disabled).toBe(true);
    expect(fetchMock.mock.calls.map(([i]) => new URL(String(i), "http://localhost").pathname).sort()).toEqual(["/api/domains", "/api/domains/setup"]);
  });

  it("validates the name with the product's texts before asking the server", async () => {
    const fetchMock = stubApi([]);
    render();
    await screen.findByText("No domains purchased yet");
    const check = screen.getByRole("button", { name: "Check Availability" });
    fireEvent.click(check);
    expect(await screen.findByText("Domain name is required")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Domain name"), { target: { value: "bright deals.xyz" } });
    fireEvent.click(check);
    expect(await screen.findByText("Invalid domain format (e.g., example.com, example.co.uk)")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Domain name"), { target: { value: "brightdeals.net" } });
    fireEvent.click(check);
    expect(await screen.findByText("Only .xyz domains are supported", { selector: "[role=alert]" })).toBeTruthy();
    expect(fetchMock.mock.calls.some(([i]) => String(i).includes("/check"))).toBe(false);
  });

  it("configures with the subdomain the API's schema takes, previewing the host, and refuses a bad one under its field", async () => {
    const fetchMock = stubApi([domain({ domain: "bought.xyz" })]);
    render();
    await screen.findByText("bought.xyz");
    fireEvent.click(within(rowOf("bought.xyz")).getByRole("button", { name: "Configure DNS" }));
    const dialog = await screen.findByRole("dialog");
    const box = within(dialog).getByLabelText("Subdomain") as HTMLInputElement;
    expect(box.value).toBe("trk");
    expect(within(dialog).getByText("trk.bought.xyz")).toBeTruthy();
    fireEvent.change(box, { target: { value: "go now" } });
    expect(within(dialog).getByText("go now.bought.xyz")).toBeTruthy();
    fireEvent.click(within(dialog).getByRole("button", { name: "Configure DNS" }));
    expect(await within(dialog).findByText("Invalid subdomain format (e.g., trk, go, click)")).toBeTruthy();
    fireEvent.change(box, { target: { value: "" } });
    expect(await within(dialog).findByText("Subdomain is required")).toBeTruthy();
    expect(fetchMock.mock.calls.some(([i]) => String(i).includes("/configure"))).toBe(false);
  });

  it("asks before buying, naming the domain, its price and renewal price, and buys at the price it showed", async () => {
    const checked = {
      available: true,
      price: "1.36",
      premium: false,
      message: "brightdeals.xyz is available: $1.36 (first year).",
      renewalPrice: "13.68",
      maxPrice: "5.00",
      refusal: null,
    };
    const bought = { success: true, pending: false, message: "brightdeals.xyz is yours (order 80000001, $1.36 charged). Next: Configure DNS.", domain: null };
    const fetchMock = stubApi([], setup(), { "/api/domains/check": checked, "/api/domains/purchase": bought });
    render();
    await screen.findByText("No domains purchased yet");
    fireEvent.change(screen.getByLabelText("Domain name"), { target: { value: "brightdeals.xyz" } });
    fireEvent.click(screen.getByRole("button", { name: "Check Availability" }));
    fireEvent.click(await screen.findByRole("button", { name: "Purchase Domain" }));
    // The click only asks: nothing is bought until the confirmation.
    const dialog = await screen.findByRole("alertdialog");
    expect(within(dialog).getByText("Buy brightdeals.xyz?")).toBeTruthy();
    expect(within(dialog).getByText("$1.36 for the first year")).toBeTruthy();
    expect(within(dialog).getByText("$13.68 a year after that")).toBeTruthy();
    expect(callsTo(fetchMock, "/api/domains/purchase")).toEqual([]);
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(callsTo(fetchMock, "/api/domains/purchase")).toEqual([]);

    fireEvent.click(screen.getByRole("button", { name: "Purchase Domain" }));
    fireEvent.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Buy for $1.36" }));
    expect(await screen.findByText("Domain purchased")).toBeTruthy();
    const [purchase] = callsTo(fetchMock, "/api/domains/purchase");
    expect(JSON.parse(String(purchase!.body))).toEqual({ domain: "brightdeals.xyz", price: "1.36" });
  });

  it("toasts what configuring did: started, not configured, while the zone waits", async () => {
    const waiting = domain({ domain: "bought.xyz", status: "configuring_dns", subdomain: "trk", host: "trk.bought.xyz", cloudflareZoneId: "z1" });
    stubApi([domain({ domain: "bought.xyz" })], setup(), {
      "/api/domains/1/configure": { success: true, message: "The Cloudflare zone of bought.xyz is pending…", domain: waiting },
    });
    render();
    await screen.findByText("bought.xyz");
    fireEvent.click(within(rowOf("bought.xyz")).getByRole("button", { name: "Configure DNS" }));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Configure DNS" }));
    expect(await screen.findByText("DNS configuration started")).toBeTruthy();
    expect(
      screen.getAllByText(/waiting for Cloudflare to activate the zone of bought\.xyz .* Trackyard then attaches trk\.bought\.xyz by itself/).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByText("Domain configured")).toBeNull();
  });

  it("says what Migrate to Workers does before it runs", async () => {
    const fetchMock = stubApi(ROWS, setup(), {
      "/api/domains/4/migrate-to-workers": { success: true, message: "trk.live.xyz now runs on this Worker as a Custom Domain.", domain: ROWS[3] },
    });
    render();
    await screen.findByText("live.xyz");
    fireEvent.click(within(rowOf("live.xyz")).getByRole("button", { name: "Migrate to Workers" }));
    const dialog = await screen.findByRole("alertdialog");
    expect(within(dialog).getByText("Migrate trk.live.xyz to Workers?")).toBeTruthy();
    expect(within(dialog).getByText(/is deleted and replaced/)).toBeTruthy();
    expect(within(dialog).getByText(/Safe to run again/)).toBeTruthy();
    expect(callsTo(fetchMock, "/api/domains/4/migrate-to-workers")).toEqual([]);
    fireEvent.click(within(dialog).getByRole("button", { name: "Migrate to Workers" }));
    expect(await screen.findByText("Migrated to Workers")).toBeTruthy();
    expect(callsTo(fetchMock, "/api/domains/4/migrate-to-workers")).toHaveLength(1);
  });

  it("polls fast while a step runs, slowly while a zone waits, and not otherwise", () => {
    expect(pollInterval([domain({ status: "purchasing" })])).toBe(2000);
    expect(pollInterval([domain({ status: "configuring_dns", busy: true })])).toBe(2000);
    expect(pollInterval([domain({ status: "configuring_dns" })])).toBe(15_000);
    expect(pollInterval([domain({ status: "active" }), domain({ status: "failed" })])).toBe(false);
    expect(pollInterval(undefined)).toBe(false);
  });
});
