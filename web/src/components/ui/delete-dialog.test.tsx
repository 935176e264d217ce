import { QueryClient, QueryClientProvider, useMutation } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { DeleteDialog } from "./delete-dialog";
import { Toaster } from "./toast";

function Harness({ remove }: { remove(id: number): Promise<unknown> }) {
  const [item, setItem] = useState<{ id: number; name: string } | null>({ id: 7, name: "Prize quiz" });
  const mutation = useMutation({ mutationFn: remove });
  return (
    <>
      <DeleteDialog
        item={item}
        onClose={() => setItem(null)}
        remove={mutation}
        noun="lander"
        description={(i) => `Deleting ${i?.name ?? "this lander"} cascades.`}
      />
      <Toaster />
    </>
  );
}

const renderHarness = (remove: (id: number) => Promise<unknown>) =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Harness remove={remove} />
    </QueryClientProvider>,
  );

describe("DeleteDialog", () => {
  it("asks first, deletes the row's id, then closes with the success toast", async () => {
    const remove = vi.fn().mockResolvedValue({ ok: true });
    renderHarness(remove);
    expect(screen.getByRole("alertdialog", { name: "Delete lander?" })).toBeTruthy();
    expect(screen.getByText("Deleting Prize quiz cascades.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Delete lander" }));
    await waitFor(() => expect(remove).toHaveBeenCalledWith(7, expect.anything()));
    expect(await screen.findByText("Lander deleted")).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
  });

  it("keeps the dialog open and shows the server's message when the delete fails", async () => {
    renderHarness(() => Promise.reject(new Error("Lander not found")));
    fireEvent.click(screen.getByRole("button", { name: "Delete lander" }));
    expect(await screen.findByText("Lander not found")).toBeTruthy();
    expect(screen.getByRole("alertdialog", { name: "Delete lander?" })).toBeTruthy();
  });
});
