import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, member, renderWithUser } from "@/test/render";
import { WebhooksCard } from "./webhooks-card";

const SECRET = "a".repeat(64);
const hookJson = (id: number, url: string, over: Record<string, unknown> = {}) => ({
  id,
  url,
  events: ["conversion.created"],
  owner: { id: member().id, username: member().username },
  createdAt: "2026-11-20T10:00:00.000Z",
  failures: 0,
  disabledAt: null as string | null,
  disabledReason: null as string | null,
  lastAttemptAt: null as string | null,
  lastOk: null as boolean | null,
  ...over,
});
const delivery = {
  id: 1,
  eventId: "evt_1",
  eventType: "conversion.created",
  attempt: 2,
  ok: false,
  status: 500,
  error: "Answered 500: oops",
  durationMs: 812,
  at: "2026-11-25T23:30:00.000Z",
};

/** The API as the card calls it: the webhooks held in `hooks`, and every request's method, path and body recorded. */
function fakeApi(hooks: ReturnType<typeof hookJson>[]) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(new URL(String(input instanceof Request ? input.url : input), "http://localhost"), init);
      const path = new URL(request.url).pathname;
      const body = request.method === "POST" && request.headers.get("content-type")?.includes("json") ? await request.json() : undefined;
      calls.push({ method: request.method, path, body });
      if (path === "/api/webhooks" && request.method === "POST") {
        const { url, events } = body as { url: string; events: string[] };
        const created = hookJson(9, url, { events });
        hooks.unshift(created);
        return Response.json({ secret: SECRET, webhook: created }, { status: 201 });
      }
      if (path === "/api/webhooks") return Response.json(hooks);
      if (path === "/api/webhooks/all") return Response.json(hooks);
      if (/^\/api\/webhooks\/\d+\/deliveries$/.test(path)) return Response.json([delivery]);
      if (/^\/api\/webhooks\/\d+\/test$/.test(path)) return Response.json({ queued: true, eventId: "evt_t" }, { status: 202 });
      const enable = /^\/api\/webhooks\/(\d+)\/enable$/.exec(path);
      if (enable) {
        const hook = hooks.find((h) => h.id === Number(enable[1]))!;
        Object.assign(hook, { disabledAt: null, disabledReason: null, failures: 0 });
        return Response.json(hook);
      }
      return Response.json({ error: "Not found" }, { status: 404 });
    }),
  );
  return calls;
}

describe("the webhooks card", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("offers a member only the conversion events, says what the form lacks, and shows the new secret once", async () => {
    const calls = fakeApi([]);
    renderWithUser(<WebhooksCard />, member(["dashboard"]));
    expect(await screen.findByText("No webhooks yet.")).toBeTruthy();
    expect(screen.getByText(/after 15 failures in a row a webhook is switched off/)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Add Webhook" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a webhook" });
    expect(within(dialog).getByRole("checkbox", { name: /conversion\.created/ })).toBeTruthy();
    expect(within(dialog).queryByRole("checkbox", { name: /rule\.fired/ })).toBeNull();
    expect(within(dialog).queryByRole("checkbox", { name: /domain\.active/ })).toBeNull();

    fireEvent.click(within(dialog).getByRole("button", { name: "Add Webhook" }));
    expect(await within(dialog).findByText("URL is required")).toBeTruthy();
    expect(within(dialog).getByText("Choose at least one event")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    fireEvent.change(within(dialog).getByLabelText("URL"), { target: { value: "https://sheet.example.com/hook" } });
    fireEvent.click(within(dialog).getByRole("checkbox", { name: /conversion\.created/ }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Add Webhook" }));
    const shown = await screen.findByRole("dialog", { name: "Copy the signing secret" });
    expect(within(shown).getByTestId("webhook-secret").textContent).toBe(SECRET);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ url: "https://sheet.example.com/hook", events: ["conversion.created"] });
    fireEvent.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Copy the signing secret" })).toBeNull());
    expect(screen.queryByText(SECRET)).toBeNull();
    expect(await within(screen.getByRole("list", { name: "Your webhooks" })).findByText("https://sheet.example.com/hook")).toBeTruthy();
  });

  it("shows the delivery log in the report time zone, sends a test event, and enables a switched-off webhook", async () => {
    const off = hookJson(3, "https://bi.example.com/in", {
      disabledAt: "2026-11-25T23:31:00.000Z",
      disabledReason: "Switched off after 15 failed deliveries in a row; the last: Answered 500: oops",
      failures: 15,
      lastAttemptAt: "2026-11-25T23:31:00.000Z",
      lastOk: false,
    });
    const calls = fakeApi([hookJson(2, "https://ok.example.com/in"), off]);
    renderWithUser(<WebhooksCard />, admin(), { timeZone: "Asia/Manila" });
    const list = await screen.findByRole("list", { name: "Your webhooks" });
    expect(within(list).getByText("Switched off")).toBeTruthy();
    expect(within(list).getByText(/Switched off after 15 failed deliveries/)).toBeTruthy();

    fireEvent.click(within(list).getAllByRole("button", { name: "Delivery Log" })[1]!);
    const log = await screen.findByRole("dialog", { name: "Delivery log" });
    // 23:30 UTC is 07:30 the next day in Manila.
    expect(await within(log).findByText(/Nov 26, 2026.*7:30/)).toBeTruthy();
    expect(within(log).getByText("(Asia/Manila)", { exact: false })).toBeTruthy();
    expect(within(log).getByText("500")).toBeTruthy();
    expect(within(log).getByText("812")).toBeTruthy();
    fireEvent.click(within(log).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Delivery log" })).toBeNull());

    fireEvent.click(within(list).getByRole("button", { name: "Send Test Event" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === "/api/webhooks/2/test")).toBe(true));
    fireEvent.click(within(list).getByRole("button", { name: "Enable" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === "/api/webhooks/3/enable")).toBe(true));
    await waitFor(() => expect(within(screen.getByRole("list", { name: "Your webhooks" })).queryByText("Switched off")).toBeNull());
  });
});
