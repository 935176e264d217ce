import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { CampaignDialog } from "./campaign-dialog";

/**
 * The API as the dialog reads it: one lander, no offers, no tracking domains, two sparks and the
 * media buyers known so far; posts and patches recorded, and answered with `refusal` (a 400's body)
 * when one is given.
 */
function stubApi(refusal?: { error: string; details: string[] }) {
  const posts: unknown[] = [];
  const patches: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://localhost");
      const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (url.pathname === "/api/landers") return json([{ id: 7, name: "Quiz", url: "https://lander.test/", createdAt: "2026-11-01T00:00:00.000Z" }]);
      if (url.pathname === "/api/offers") return json([]);
      if (url.pathname === "/api/campaigns/tracking-domains") return json({ domains: [], defaultRedirectBase: null });
      if (url.pathname === "/api/sparks")
        return json([
          { id: 3, name: "Glow", code: "", sparkId: "glow12345678", createdAt: "2026-11-01T00:00:00.000Z" },
          { id: 4, name: "Shine", code: "", sparkId: "shine1234567", createdAt: "2026-11-01T00:00:00.000Z" },
        ]);
      if (url.pathname === "/api/users/assignment-options") return json({ vcnNicknames: [], mediaBuyers: ["ana", "bo"], sparks: [] });
      const method = init?.method ?? (input instanceof Request ? input.method : "GET");
      if (url.pathname.startsWith("/api/campaigns") && (method === "POST" || method === "PATCH")) {
        const body = input instanceof Request ? await input.json() : JSON.parse(String(init?.body));
        (method === "POST" ? posts : patches).push(body);
        return refusal ? json(refusal, 400) : json({ id: 1 }, method === "POST" ? 201 : 200);
      }
      return json({ error: "not stubbed" }, 404);
    }),
  );
  return { posts, patches };
}

afterEach(() => vi.unstubAllGlobals());

describe("the campaign dialog checks with the API's own schema", () => {
  it("says under each field what is missing, and sends nothing", async () => {
    const { posts } = stubApi();
    renderWithUser(<CampaignDialog campaign={null} onClose={vi.fn()} />, admin());
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    // The server schema's own sentences, under their fields.
    await screen.findByText("Campaign name is required");
    expect(screen.getAllByRole("alert").map((a) => a.textContent)).toEqual(["Campaign name is required", "Select a lander"]);
    expect(screen.getByRole("textbox", { name: "Campaign Name" }).getAttribute("aria-invalid")).toBe("true");
    expect(posts).toEqual([]);
  });

  it("sends the values the API takes: ids as numbers, no offer or domain left out", async () => {
    const { posts } = stubApi();
    const onClose = vi.fn();
    renderWithUser(<CampaignDialog campaign={null} onClose={onClose} />, admin());
    fireEvent.change(screen.getByRole("textbox", { name: "Campaign Name" }), { target: { value: "  Spring sweeps " } });
    fireEvent.click(await screen.findByRole("combobox", { name: "Lander" }));
    fireEvent.click(await screen.findByRole("option", { name: "Quiz" }));
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    await waitFor(() => expect(posts).toEqual([{ name: "Spring sweeps", landerId: 7, bhToggle: false }]));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it("sends the media buyer (a known one or one typed) and the spark, which carry CAKE's sub1 and sub3", async () => {
    const { posts } = stubApi();
    renderWithUser(<CampaignDialog campaign={null} onClose={vi.fn()} />, admin());
    fireEvent.change(screen.getByRole("textbox", { name: "Campaign Name" }), { target: { value: "Spring" } });
    fireEvent.click(await screen.findByRole("combobox", { name: "Lander" }));
    fireEvent.click(await screen.findByRole("option", { name: "Quiz" }));
    // The known media buyers are the text box's suggestions; a new one can be typed.
    const buyer = screen.getByRole("combobox", { name: "Media Buyer (optional)" });
    await waitFor(() =>
      expect([...document.querySelectorAll(`#${CSS.escape(buyer.getAttribute("list")!)} option`)].map((o) => o.getAttribute("value"))).toEqual(["ana", "bo"]),
    );
    fireEvent.change(buyer, { target: { value: " carla " } });
    fireEvent.click(screen.getByRole("combobox", { name: "Spark (optional)" }));
    fireEvent.click(await screen.findByRole("option", { name: "Shine (shine1234567)" }));
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    await waitFor(() => expect(posts).toEqual([{ name: "Spring", landerId: 7, bhToggle: false, mediaBuyer: "carla", sparkId: 4 }]));
  });

  it("clears a campaign's media buyer and spark with null when edited away", async () => {
    const { patches } = stubApi();
    const campaign = {
      id: 9,
      name: "Spring",
      landerId: 7,
      landerName: "Quiz",
      offerId: null,
      offerName: null,
      domainId: null,
      trackingDomain: null,
      bhToggle: true,
      mediaBuyer: "ana",
      sparkId: 3,
      createdAt: "2026-11-01T00:00:00.000Z",
      trackingUrl: null,
      exitUrl: null,
      exitScriptUrl: null,
      exitScript: null,
    };
    renderWithUser(<CampaignDialog campaign={campaign} onClose={vi.fn()} />, admin());
    const buyer = screen.getByRole("combobox", { name: "Media Buyer (optional)" });
    expect((buyer as HTMLInputElement).value).toBe("ana");
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Spark (optional)" }).textContent).toBe("Glow (glow12345678)"));
    fireEvent.change(buyer, { target: { value: "" } });
    fireEvent.click(screen.getByRole("combobox", { name: "Spark (optional)" }));
    fireEvent.click(await screen.findByRole("option", { name: "No Spark" }));
    fireEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    await waitFor(() =>
      expect(patches).toEqual([{ name: "Spring", landerId: 7, offerId: null, domainId: null, bhToggle: true, mediaBuyer: null, sparkId: null }]),
    );
  });

  it("a refusal only the server can make: its sentence under the field, and the screen's failure toast", async () => {
    // The lander was deleted by a teammate after the dialog listed it.
    stubApi({ error: "Lander 7 does not exist", details: ["landerId: Lander 7 does not exist"] });
    const onClose = vi.fn();
    renderWithUser(
      <>
        <CampaignDialog campaign={null} onClose={onClose} />
        <Toaster />
      </>,
      admin(),
    );
    fireEvent.change(screen.getByRole("textbox", { name: "Campaign Name" }), { target: { value: "Spring sweeps" } });
    fireEvent.click(await screen.findByRole("combobox", { name: "Lander" }));
    fireEvent.click(await screen.findByRole("option", { name: "Quiz" }));
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    // The toast region keeps one toast: wait for this failure's to replace an earlier test's.
    await waitFor(() => expect(screen.getByRole("status").textContent).toMatch(/Error.*Lander 7 does not exist/));
    const underField = screen.getAllByRole("alert").map((a) => a.textContent);
    expect(underField).toEqual(["Lander 7 does not exist"]);
    expect(screen.getByRole("combobox", { name: "Lander" }).getAttribute("aria-invalid")).toBe("true");
    expect(onClose).not.toHaveBeenCalled();
  });
});
