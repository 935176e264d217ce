import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { AssignmentDialog } from "./assignment-dialog";

const USER_ID = "00000000-0000-4000-8000-0000000000aa";

describe("media buyers assignment", () => {
  let saved: unknown[];
  beforeEach(() => {
    saved = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        if (init?.method === "POST") {
          saved.push(JSON.parse(String(init.body)));
          return Response.json({ ok: true });
        }
        return Response.json(String(input).includes("/media-buyers") ? [{ subid1: "mb-anna" }] : []);
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  const render = () =>
    renderWithUser(
      <>
        <AssignmentDialog
          kind="mediaBuyers"
          userId={USER_ID}
          username="mia"
          options={[{ value: "mb-anna", label: "mb-anna" }]}
          optionsLoading={false}
          copy={{
            title: "Media Buyers",
            description: "d",
            empty: "none",
            success: "Media buyers assigned",
            failure: "Failed",
            addLabel: "Media buyer sub1 value",
          }}
          open
          onOpenChange={() => {}}
        />
        <Toaster />
      </>,
      admin(),
    );

  it("refuses a too-long or blank id under the box with the API's sentence; a good one is added checked and saved with the rest", async () => {
    render();
    const dialog = await screen.findByRole("dialog");
    await waitFor(() => expect(within(dialog).getByRole("checkbox", { name: "mb-anna" }).getAttribute("aria-checked")).toBe("true"));
    const box = within(dialog).getByLabelText("Media buyer sub1 value");
    fireEvent.change(box, { target: { value: "x".repeat(51) } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add" }));
    expect(await within(dialog).findByText("Media buyer ids are at most 50 characters")).toBeTruthy();
    fireEvent.change(box, { target: { value: "   " } });
    expect(await within(dialog).findByText("Values cannot be empty")).toBeTruthy();

    fireEvent.change(box, { target: { value: " mb-ben " } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add" }));
    await waitFor(() => expect(within(dialog).getByRole("checkbox", { name: "mb-ben" }).getAttribute("aria-checked")).toBe("true"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Media buyers assigned")).toBeTruthy();
    expect(saved).toEqual([{ subid1s: ["mb-anna", "mb-ben"] }]);
  });
});
