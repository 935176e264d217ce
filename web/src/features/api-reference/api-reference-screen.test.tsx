import { fireEvent, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { member, renderWithUser } from "@/test/render";
import type { ApiDescription } from "../../../../worker/src/openapi/description";
import ApiReferenceScreen from "./api-reference-screen";

const ERROR = { type: "object", properties: { error: { type: "string" } }, required: ["error"] };

/** A small description in the shape /api/openapi.json has (worker/src/openapi/document.ts). */
const DOC: ApiDescription = {
  openapi: "3.1.0",
  info: { title: "Trackyard API", version: "1", description: "Call it with `Authorization: Bearer ty_…`." },
  tags: [{ name: "Account", description: "The signed-in user's own profile." }, { name: "Offers" }],
  paths: {
    "/api/offers": {
      post: {
        operationId: "postOffers",
        summary: "Create an offer",
        description: "**Who may call it:** Admins only. With an API key: the scope offers:write.",
        tags: ["Offers"],
        security: [{ bearerAuth: [] }, { cookieAuth: [] }],
        "x-access": "admin",
        "x-api-key-scopes": ["offers:write"],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { name: { type: "string", minLength: 1, maxLength: 255 }, utmTemplate: { type: "string" } },
                required: ["name"],
              },
              example: { name: "Sweepstakes US" },
            },
          },
        },
        responses: {
          "201": { description: "The new offer.", content: { "application/json": { example: { id: 4, name: "Sweepstakes US" } } } },
          "400": { $ref: "#/components/responses/BadRequest" },
          "429": { $ref: "#/components/responses/TooManyRequests" },
        },
      },
    },
    "/api/account/sessions": {
      get: {
        operationId: "getAccountSessions",
        summary: "One's own sessions",
        description: "**Who may call it:** Any signed-in user. API keys are refused here: sign in to the app.",
        tags: ["Account"],
        security: [{ cookieAuth: [] }],
        "x-access": "signed-in",
        "x-api-key-scopes": [],
        responses: { "200": { description: "Done." } },
      },
    },
  },
  components: {
    responses: {
      BadRequest: { description: "The input is not valid.", content: { "application/json": { schema: ERROR } } },
      TooManyRequests: {
        description: "The key made more than 600 requests this minute.",
        headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      },
    },
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" }, cookieAuth: { type: "apiKey", in: "cookie", name: "__Host-session" } },
  },
};

function renderScreen() {
  const requested: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const path = new URL(String(input instanceof Request ? input.url : input), "http://localhost").pathname;
      requested.push(path);
      return path === "/api/openapi.json" ? Response.json(DOC) : Response.json({ error: "Not found" }, { status: 404 });
    }),
  );
  renderWithUser(
    <MemoryRouter initialEntries={["/account/api"]}>
      <ApiReferenceScreen />
    </MemoryRouter>,
    member(),
  );
  return requested;
}

describe("the API reference", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists the description's operations by tag, each opening to who may call it, its scope, body, example and answers", async () => {
    const requested = renderScreen();
    const offers = await screen.findByRole("region", { name: "Offers" });
    expect(requested).toContain("/api/openapi.json");
    const nav = screen.getByRole("navigation", { name: "API sections" });
    expect(
      within(nav)
        .getAllByRole("link")
        .map((a) => a.getAttribute("href")),
    ).toEqual(["#tag-account", "#tag-offers"]);

    // Closed, an operation is its line: method, path and summary, on a native <summary> the keyboard opens.
    const line = within(offers).getByText("/api/offers").closest("summary")!;
    expect(line.textContent).toContain("post");
    expect(line.textContent).toContain("Create an offer");
    const details = line.closest("details")!;
    expect(details.open).toBe(false);
    fireEvent.click(line);
    expect(details.open).toBe(true);

    expect(within(details).getByText("Who may call it:")).toBeTruthy();
    expect(within(details).getByText("Session or API key")).toBeTruthy();
    expect(within(details).getByText("scope offers:write")).toBeTruthy();
    const name = within(details).getByText("name").closest("li")!;
    expect(name.textContent).toContain("required");
    expect(name.textContent).toContain("1–255 characters");
    expect(within(details).getByText("utmTemplate").closest("li")!.textContent).toContain("optional");
    const examples = within(details)
      .getAllByText(/"Sweepstakes US"/, { selector: "pre" })
      .map((pre) => pre.textContent);
    expect(examples).toEqual([JSON.stringify({ name: "Sweepstakes US" }, null, 2), JSON.stringify({ id: 4, name: "Sweepstakes US" }, null, 2)]);
    // Shared answers are read from the components they refer to.
    expect(within(details).getByText("The input is not valid.")).toBeTruthy();
    expect(within(details).getByText("Headers: Retry-After")).toBeTruthy();

    // A route keys never work on says so.
    const account = screen.getByRole("region", { name: "Account" });
    fireEvent.click(within(account).getByText("/api/account/sessions").closest("summary")!);
    expect(within(account).getByText("Session only (API keys refused)")).toBeTruthy();
  });

  it("filters by path, summary or scope, and says when nothing matches", async () => {
    renderScreen();
    await screen.findByRole("region", { name: "Offers" });
    const filter = screen.getByRole("searchbox", { name: "Filter routes" });
    fireEvent.change(filter, { target: { value: "offers:write" } });
    expect(screen.queryByRole("region", { name: "Account" })).toBeNull();
    expect(screen.getByRole("region", { name: "Offers" })).toBeTruthy();
    fireEvent.change(filter, { target: { value: "nothing like this" } });
    expect(screen.getByText("No route matches")).toBeTruthy();
  });

  it("offers the document itself, and the way back to Account", async () => {
    renderScreen();
    await screen.findByRole("region", { name: "Offers" });
    expect(screen.getByRole("link", { name: /openapi\.json/ }).getAttribute("href")).toBe("/api/openapi.json");
    expect(screen.getByRole("link", { name: "Account" }).getAttribute("href")).toBe("/account");
  });
});
