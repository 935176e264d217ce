import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { ConfirmDialog, Dialog } from "./dialog";
import { toast, Toaster } from "./toast";

/** Opens the dialog from a plain button, as every screen does (no Radix trigger). */
function Screen({ mountWhenOpen = false, confirm = false }: { mountWhenOpen?: boolean; confirm?: boolean }) {
  const [open, setOpen] = useState(false);
  const dialog = confirm ? (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      title="Delete lander?"
      description="Gone for good."
      confirmLabel="Delete lander"
      onConfirm={() => setOpen(false)}
    />
  ) : (
    <Dialog open={open} onOpenChange={setOpen} title="Create New User">
      <input aria-label="Username" />
      <button type="button" onClick={() => toast({ title: "Validation error", variant: "destructive" })}>
        Check
      </button>
    </Dialog>
  );
  return (
    <main>
      <h1 tabIndex={-1}>Users</h1>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {mountWhenOpen ? (open ? dialog : null) : dialog}
      <Toaster />
    </main>
  );
}

const opener = () => screen.getByRole("button", { name: "Open" });

describe("dialogs and focus", () => {
  for (const [name, props] of [
    ["a dialog kept mounted", {}],
    ["a dialog mounted only while open", { mountWhenOpen: true }],
    ["a confirmation", { confirm: true }],
  ] as const) {
    it(`gives focus back to the control that opened it when Escape closes ${name}`, async () => {
      const user = userEvent.setup();
      render(<Screen {...props} />);
      await user.click(opener());
      const dialog = await screen.findByRole(props.confirm ? "alertdialog" : "dialog");
      await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
      await user.keyboard("{Escape}");
      await waitFor(() => expect(screen.queryByRole(props.confirm ? "alertdialog" : "dialog")).toBeNull());
      await waitFor(() => expect(document.activeElement).toBe(opener()));
    });
  }

  it("gives focus back after the close button too", async () => {
    const user = userEvent.setup();
    render(<Screen />);
    await user.click(opener());
    await user.click(await screen.findByRole("button", { name: "Close" }));
    await waitFor(() => expect(document.activeElement).toBe(opener()));
  });

  it("closes the dialog with the first Escape while a toast shows over it", async () => {
    const user = userEvent.setup();
    render(<Screen />);
    await user.click(opener());
    await user.click(await screen.findByRole("button", { name: "Check" }));
    expect(await screen.findByText("Validation error")).toBeTruthy();
    screen.getByRole("textbox", { name: "Username" }).focus();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener()));
  });

  it("lets Escape inside a focused toast close the toast", async () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Saved" });
    });
    const item = screen.getByText("Saved").closest("li")!;
    item.focus();
    fireEvent.keyDown(item, { key: "Escape" });
    await waitFor(() => expect(screen.queryByText("Saved")).toBeNull());
  });
});
