import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, member, renderWithUser } from "@/test/render";
import type { CurrentUser } from "@/lib/auth";
import PathsScreen from "./paths-screen";

const variant = { paused: false, pinned: false };
const optimisation = { mode: "off", windowDays: 7, floorPercent: 5, minVisits: 200 };
/** What GET /api/campaigns/5/paths answers for a campaign made by the Create Campaign dialog, after one rule path was added. */
const savedPaths = () => [
  {
    id: 11,
    name: "Germany",
    isDefault: false,
    conditions: [{ field: "country", op: "is", values: ["DE"] }],
    landers: [{ landerId: 1, weight: 100, ...variant }],
    offers: [{ offerId: 7, weight: 100, ...variant }],
    directToOffer: false,
    stickyDays: null,
    optimisation,
  },
  {
    id: 12,
    name: "Phones",
    isDefault: false,
    conditions: [{ field: "deviceType", op: "is", values: ["mobile"] }],
    landers: [{ landerId: 2, weight: 100, ...variant }],
    offers: [],
    directToOffer: false,
    stickyDays: null,
    optimisation,
  },
  {
    id: 10,
    name: "Default path",
    isDefault: true,
    conditions: [],
    landers: [{ landerId: 1, weight: 100, ...variant }],
    offers: [{ offerId: 7, weight: 100, ...variant }],
    directToOffer: false,
    stickyDays: null,
    optimisation,
  },
];

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

function stubApi({ refuse }: { refuse?: { error: string; details: string[] } } = {}) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(new URL(String(input), "http://localhost"), init);
      const { pathname } = new URL(request.url);
      if (request.method === "GET" && pathname === "/api/campaigns") return Response.json([{ id: 5, name: "Spring sweeps" }]);
      if (request.method === "GET" && pathname === "/api/landers")
        return Response.json([
          { id: 1, name: "Quiz A" },
          { id: 2, name: "Quiz B" },
          { id: 3, name: "Quiz C" },
        ]);
      if (request.method === "GET" && pathname === "/api/offers") return Response.json([{ id: 7, name: "Sweeps offer" }]);
      if (request.method === "GET" && pathname === "/api/campaigns/5/paths") return Response.json({ paths: savedPaths() });
      const body = await request.json();
      sent.push({ method: request.method, path: pathname, body });
      if (refuse) return Response.json(refuse, { status: 400 });
      const paths = (body as { paths: { id?: number }[] }).paths.map((p, i) => ({ ...p, id: p.id ?? 100 + i }));
      return Response.json({ paths });
    }),
  );
  return sent;
}

function renderScreen(user: CurrentUser = admin()) {
  const router = createMemoryRouter(
    [
      { path: "/campaigns/:id/paths", element: <PathsScreen /> },
      { path: "/campaigns", element: <p>campaigns list</p> },
    ],
    { initialEntries: ["/campaigns/5/paths"] },
  );
  renderWithUser(
    <>
      <RouterProvider router={router} />
      <Toaster />
    </>,
    user,
  );
  return router;
}

const pathGroup = (name: RegExp) => screen.getByRole("group", { name });
const order = () =>
  [...screen.getByRole("list", { name: "Paths in evaluation order" }).querySelectorAll("[data-path-key]")].map((g) => g.getAttribute("aria-label"));

/**
 * Each test renders the whole editor (three paths, their variants and conditions) and re-renders it
 * on every change: one took 29 s on this machine at load 13, past a 20 s limit. Sized to that with room.
 */
const EDITOR_TEST_MS = 60_000;

describe("Traffic distribution", () => {
  afterEach(() => vi.unstubAllGlobals());

  describe("as an admin", () => {
    let sent: Sent[];
    beforeEach(() => {
      sent = stubApi();
    });

    it(
      "shows each weight as a share live as it is typed, and saves the whole set in order",
      async () => {
        renderScreen();
        const germany = await screen.findByRole("group", { name: /Path 1: Germany/ });
        expect(order()).toEqual(["Path 1: Germany", "Path 2: Phones", "Path 3: Default path"]);
        expect(within(germany).getByText("Germany (DE)")).toBeTruthy();
        fireEvent.click(within(germany).getByRole("button", { name: "Add lander" }));
        expect(within(germany).getByRole("status", { name: "Share of Quiz A" }).textContent).toBe("50%");
        expect(within(germany).getByRole("status", { name: "Share of Quiz B" }).textContent).toBe("50%");
        fireEvent.change(within(germany).getByRole("textbox", { name: "Weight of Quiz B" }), { target: { value: "300" } });
        expect(within(germany).getByRole("status", { name: "Share of Quiz A" }).textContent).toBe("25%");
        expect(within(germany).getByRole("status", { name: "Share of Quiz B" }).textContent).toBe("75%");
        fireEvent.click(within(germany).getByRole("switch", { name: "Pause Quiz A" }));
        expect(within(germany).getByRole("status", { name: "Share of Quiz A" }).textContent).toBe("0%");
        expect(within(germany).getByText("Receives nobody, returning visitors included.")).toBeTruthy();

        fireEvent.click(screen.getByRole("button", { name: "Save" }));
        await waitFor(() => expect(sent).toHaveLength(1));
        const body = sent[0]!.body as { paths: { name: string; landers: unknown[] }[] };
        expect(sent[0]!.method).toBe("PUT");
        expect(sent[0]!.path).toBe("/api/campaigns/5/paths");
        expect(body.paths.map((p) => p.name)).toEqual(["Germany", "Phones", "Default path"]);
        expect(body.paths[0]!.landers).toEqual([
          { landerId: 1, weight: 100, paused: true, pinned: false },
          { landerId: 2, weight: 300, paused: false, pinned: false },
        ]);
        await screen.findByText("Traffic distribution saved");
      },
      EDITOR_TEST_MS,
    );

    it(
      "reorders rule paths from the keyboard, keeps focus on the moved path's button, and keeps the default last",
      async () => {
        renderScreen();
        await screen.findByRole("group", { name: /Path 1: Germany/ });
        expect(within(pathGroup(/Default path/)).queryByRole("button", { name: /Move/ })).toBeNull();
        expect((screen.getByRole("button", { name: "Move Germany up" }) as HTMLButtonElement).disabled).toBe(true);
        expect((screen.getByRole("button", { name: "Move Phones down" }) as HTMLButtonElement).disabled).toBe(true);
        screen.getByRole("button", { name: "Move Germany down" }).focus();
        fireEvent.click(screen.getByRole("button", { name: "Move Germany down" }));
        expect(order()).toEqual(["Path 1: Phones", "Path 2: Germany", "Path 3: Default path"]);
        // At the bottom of the rules it cannot go further down: focus moves to its "up" button.
        await waitFor(() => expect(document.activeElement?.getAttribute("aria-label")).toBe("Move Germany up"));
        expect(screen.getByText("Germany moved to position 2 of 3")).toBeTruthy();
        expect(screen.getByText("Unsaved changes")).toBeTruthy();
      },
      EDITOR_TEST_MS,
    );

    it(
      "refuses to save what the form can tell is wrong, saying it beside the field",
      async () => {
        renderScreen();
        const phones = await screen.findByRole("group", { name: /Path 2: Phones/ });
        fireEvent.change(within(phones).getByRole("textbox", { name: "Weight of Quiz B" }), { target: { value: "0" } });
        fireEvent.click(within(phones).getByRole("button", { name: "Remove condition 1 of Phones" }));
        fireEvent.click(screen.getByRole("button", { name: "Save" }));
        await within(phones).findByText('Path "Phones": every lander is paused or at 0%, so nobody could be sent to one');
        expect(within(phones).getByText('Path "Phones" needs at least one condition (only the default path has none)')).toBeTruthy();
        expect(sent).toEqual([]);
        // Fixing a field takes its message away at once.
        fireEvent.change(within(phones).getByRole("textbox", { name: "Weight of Quiz B" }), { target: { value: "10" } });
        expect(within(phones).queryByText(/every lander is paused/)).toBeNull();
        expect(within(phones).getByText(/needs at least one condition/)).toBeTruthy();
      },
      EDITOR_TEST_MS,
    );

    it(
      "asks before leaving with unsaved changes",
      async () => {
        const router = renderScreen();
        const germany = await screen.findByRole("group", { name: /Path 1: Germany/ });
        fireEvent.change(within(germany).getByRole("textbox", { name: "Name of path 1" }), { target: { value: "Germany and Austria" } });
        fireEvent.click(screen.getByRole("link", { name: "Campaigns" }));
        const ask = await screen.findByRole("alertdialog", { name: "Discard unsaved changes?" });
        fireEvent.click(within(ask).getByRole("button", { name: "Cancel" }));
        expect(router.state.location.pathname).toBe("/campaigns/5/paths");
        fireEvent.click(screen.getByRole("link", { name: "Campaigns" }));
        fireEvent.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Discard changes" }));
        await screen.findByText("campaigns list");
      },
      EDITOR_TEST_MS,
    );
  });

  it(
    "shows the server's refusal beside the path and field it names",
    async () => {
      stubApi({ refuse: { error: "Lander 2 no longer exists", details: ["paths.1.landers.0.landerId: Lander 2 no longer exists"] } });
      renderScreen();
      const phones = await screen.findByRole("group", { name: /Path 2: Phones/ });
      fireEvent.change(within(phones).getByRole("textbox", { name: "Name of path 2" }), { target: { value: "Mobile" } });
      fireEvent.click(screen.getByRole("button", { name: "Save" }));
      const alert = await within(pathGroup(/Path 2: Mobile/)).findByRole("alert");
      expect(alert.textContent).toBe("Lander 2 no longer exists");
      expect(within(pathGroup(/Path 1: Germany/)).queryByRole("alert")).toBeNull();
    },
    EDITOR_TEST_MS,
  );

  it(
    "lets a member look but not change",
    async () => {
      stubApi();
      renderScreen(member(["campaigns"]));
      const germany = await screen.findByRole("group", { name: /Path 1: Germany/ });
      expect(screen.queryByRole("button", { name: "Save" })).toBeNull();
      // Inside a disabled fieldset, as browsers disable it (jsdom does not follow nested fieldsets).
      expect(within(germany).getByRole("textbox", { name: "Weight of Quiz A" }).closest("fieldset[disabled]")).not.toBeNull();
      expect(within(germany).getByRole("textbox", { name: "Name of path 1" }).matches(":disabled")).toBe(true);
    },
    EDITOR_TEST_MS,
  );
});
