import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { attributionProblem, DEFAULT_UTM_TEMPLATE, OLD_DEFAULT_UTM_TEMPLATE } from "../../../../worker/src/schemas/offers";
import OfferConfigScreen from "./offer-config-screen";

const offer = (id: number, name: string, utmTemplate: string) => ({
  id,
  name,
  url: `https://network.test/?o=${id}`,
  utmTemplate,
  createdAt: "2026-11-01T00:00:00.000Z",
  // What the server answers: the same shared rule.
  attributionProblem: attributionProblem(utmTemplate),
});

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

/** The offers API as an admin's screen reads it; every write recorded and answered as saved. */
function stubApi(rows: ReturnType<typeof offer>[]) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(new URL(String(input), "http://localhost"), init);
      const { pathname } = new URL(request.url);
      if (request.method === "GET" && pathname === "/api/offers") return Response.json(rows);
      if (request.method === "GET" && pathname === "/api/offers/2/deletion-impact")
        return Response.json({ campaigns: [{ id: 5, name: "Spring", clicks: 40 }], clicks: 40, firstClickAt: null, lastClickAt: null });
      const body = request.method === "DELETE" ? null : await request.json();
      sent.push({ method: request.method, path: pathname, body });
      return Response.json(request.method === "DELETE" ? { ok: true } : { ...offer(99, "Saved", DEFAULT_UTM_TEMPLATE), ...(body as object) }, {
        status: request.method === "POST" ? 201 : 200,
      });
    }),
  );
  return sent;
}

const renderScreen = () =>
  renderWithUser(
    <>
      <OfferConfigScreen />
      <Toaster />
    </>,
    admin(),
  );

describe("Offer Config", () => {
  let sent: Sent[];
  beforeEach(() => {
    sent = stubApi([offer(1, "Fine", DEFAULT_UTM_TEMPLATE), offer(2, "Legacy", OLD_DEFAULT_UTM_TEMPLATE)]);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("marks the offer whose revenue would land on Direct, says why, and fixes it in one click through the normal edit", async () => {
    renderScreen();
    const notes = await screen.findAllByRole("note", { name: "Cannot be attributed" });
    expect(notes).toHaveLength(1);
    expect(notes[0]!.textContent).toContain('Revenue from this offer will show as "Direct"');
    expect(notes[0]!.textContent).toContain(`The fix sets it to ${DEFAULT_UTM_TEMPLATE}`);
    fireEvent.click(within(notes[0]!).getByRole("button", { name: "Fix the template of Legacy" }));
    await waitFor(() =>
      expect(sent).toEqual([
        { method: "PATCH", path: "/api/offers/2", body: { name: "Legacy", url: "https://network.test/?o=2", utmTemplate: DEFAULT_UTM_TEMPLATE } },
      ]),
    );
    await waitFor(() => expect(screen.getByRole("status").textContent).toContain("Template fixed"));
  });

  it("prefills the default template, and asks before saving one that cannot be attributed", async () => {
    renderScreen();
    fireEvent.click(await screen.findByRole("button", { name: "Add Offer" }));
    const template = screen.getByRole("textbox", { name: "UTM Template" });
    expect((template as HTMLTextAreaElement).value).toBe(DEFAULT_UTM_TEMPLATE);
    fireEvent.change(screen.getByRole("textbox", { name: "Name" }), { target: { value: "Sweeps" } });
    fireEvent.change(screen.getByRole("textbox", { name: "URL" }), { target: { value: "https://network.test/s" } });
    fireEvent.change(template, { target: { value: "s1={clickId}&s2={campaign}" } });
    // Said while typing, with the fix at hand.
    expect(await screen.findByRole("note", { name: "Cannot be attributed" })).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Create Offer" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Save a template that cannot be attributed?" });
    expect(confirm.textContent).toContain("the template sends no sub2");
    fireEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(sent).toEqual([]);

    fireEvent.click(screen.getByRole("button", { name: "Create Offer" }));
    fireEvent.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Save anyway" }));
    await waitFor(() =>
      expect(sent).toEqual([
        { method: "POST", path: "/api/offers", body: { name: "Sweeps", url: "https://network.test/s", utmTemplate: "s1={clickId}&s2={campaign}" } },
      ]),
    );
  });

  it("saves an attributable template without asking, after the dialog's own fix", async () => {
    renderScreen();
    fireEvent.click(await screen.findByRole("button", { name: "Add Offer" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Name" }), { target: { value: "Sweeps" } });
    fireEvent.change(screen.getByRole("textbox", { name: "URL" }), { target: { value: "https://network.test/s" } });
    fireEvent.change(screen.getByRole("textbox", { name: "UTM Template" }), { target: { value: "aff=7&sub2={campaign}" } });
    fireEvent.click(await screen.findByRole("button", { name: "Use the fixed template" }));
    expect((screen.getByRole("textbox", { name: "UTM Template" }) as HTMLTextAreaElement).value).toBe("aff=7&sub2={clickId}&sub4={campaign}");
    fireEvent.click(screen.getByRole("button", { name: "Create Offer" }));
    await waitFor(() =>
      expect(sent.map((s) => s.body)).toEqual([{ name: "Sweeps", url: "https://network.test/s", utmTemplate: "aff=7&sub2={clickId}&sub4={campaign}" }]),
    );
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });

  it("names the campaigns a delete leaves without an offer before deleting", async () => {
    renderScreen();
    fireEvent.click(await screen.findByRole("button", { name: "Delete Legacy" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete offer?" });
    await waitFor(() =>
      expect(within(confirm).getByRole("list", { name: "Changed by deleting Legacy" }).textContent).toBe(
        "1 campaign using it, left without an offer: Spring (40 clicks)",
      ),
    );
    fireEvent.click(within(confirm).getByRole("button", { name: "Delete offer" }));
    await waitFor(() => expect(sent).toEqual([{ method: "DELETE", path: "/api/offers/2", body: null }]));
  });
});
