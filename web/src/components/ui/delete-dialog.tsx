import type { UseMutationResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ConfirmDialog } from "./dialog";
import { toast, toastError } from "./toast";

interface DeleteDialogProps<T extends { id: number; name: string }> {
  /** The row being deleted; null keeps the dialog closed. */
  item: T | null;
  onClose(): void;
  /** The delete call; its id is the row's. */
  remove: UseMutationResult<unknown, Error, number>;
  /** "lander" → "Delete lander?", "Lander deleted", "Failed to delete lander" (docs/screens.md §8). */
  noun: string;
  description(item: T | null): ReactNode;
  /** While true the delete waits: what goes with the row is still being counted for the description. */
  preparing?: boolean;
}

/** Asks before deleting an admin table's row, then deletes it with the product's toasts. */
export function DeleteDialog<T extends { id: number; name: string }>({ item, onClose, remove, noun, description, preparing }: DeleteDialogProps<T>) {
  const title = `${noun[0]!.toUpperCase()}${noun.slice(1)}`;
  return (
    <ConfirmDialog
      open={item !== null}
      onOpenChange={(o) => !o && onClose()}
      title={`Delete ${noun}?`}
      description={description(item)}
      confirmLabel={`Delete ${noun}`}
      busy={remove.isPending || preparing}
      onConfirm={() =>
        item &&
        remove.mutate(item.id, {
          onSuccess: () => {
            toast({ title: `${title} deleted`, description: item.name });
            onClose();
          },
          onError: (err) => toastError("Error", err, `Failed to delete ${noun}`),
        })
      }
    />
  );
}
