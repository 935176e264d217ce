import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import SettingsScreen from "./settings-screen";

describe("settings forms", () => {
  let posts: { key: string; value: string }[];
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    posts = [];
    fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === "POST" && url.endsWith("/api/settings")) {
        const body = JSON.parse(String(init.body)) as { key: string; value: string };
        posts.push(body);
        return Response.json(body);
      }
      if (url.endsWith("/api/settings")) {
        return Response.json([
          { key: "redirect_domain", value: "https://trk.old.test" },
          { key: "max_domain_price", value: "5.00" },
          { key: "report_timezone", value: "UTC" },
        ]);
      }
      return Response.json({});
    });
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  const render = () =>
    renderWithUser(
      <>
        <SettingsScreen />
        <Toaster />
      </>,
      admin(),
    );

  it("shows the stored values, refuses a bad domain under its field with the API's sentence, and sends nothing", async () => {
    render();
    const redirect = (await screen.findByLabelText("Redirect Domain")) as HTMLInputElement;
    await waitFor(() => expect(redirect.value).toBe("https://trk.old.test"));
    fireEvent.change(redirect, { target: { value: "trk.example.com/path" } });
    fireEvent.click(screen.getByRole("button", { name: "Save Domains" }));
    const error = await screen.findByText("Enter a domain such as trk.example.com (optionally with https://)");
    expect(error.getAttribute("role")).toBe("alert");
    expect(redirect.getAttribute("aria-invalid")).toBe("true");
    expect(posts).toEqual([]);
  });

  it("saves the domains as the API stores them and the price with two decimals", async () => {
    render();
    const redirect = (await screen.findByLabelText("Redirect Domain")) as HTMLInputElement;
    await waitFor(() => expect(redirect.value).toBe("https://trk.old.test"));
    fireEvent.change(redirect, { target: { value: "trk.example.com" } });
    fireEvent.change(screen.getByLabelText("Global Exit Domain (optional)"), { target: { value: "exit.example.com/click" } });
    fireEvent.click(screen.getByRole("button", { name: "Save Domains" }));
    expect(await screen.findByText("Settings updated")).toBeTruthy();
    expect(posts).toEqual([
      { key: "redirect_domain", value: "https://trk.example.com" },
      { key: "global_exit_domain", value: "https://exit.example.com" },
    ]);
    expect(redirect.value).toBe("https://trk.example.com");

    const price = screen.getByLabelText("Maximum Domain Price ($)") as HTMLInputElement;
    fireEvent.change(price, { target: { value: "12.345" } });
    fireEvent.click(screen.getByRole("button", { name: "Save Price" }));
    expect(await screen.findByText("Maximum domain price must be a number of at least 0 with at most 2 decimals")).toBeTruthy();
    fireEvent.change(price, { target: { value: "7.5" } });
    await waitFor(() => expect(screen.queryByText(/at most 2 decimals/)).toBeNull());
    fireEvent.click(screen.getByRole("button", { name: "Save Price" }));
    await waitFor(() => expect(posts.at(-1)).toEqual({ key: "max_domain_price", value: "7.50" }));
  });
});
