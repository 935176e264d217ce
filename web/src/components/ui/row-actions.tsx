import { ExternalLink, Pencil, Trash2 } from "lucide-react";
import { Button } from "./button";

/** The edit and delete icons at the end of an admin's table row, named for screen readers. */
export const RowActions = ({ name, onEdit, onDelete }: { name: string; onEdit(): void; onDelete(): void }) => (
  <div className="flex justify-end gap-1">
    <Button variant="ghost" size="icon" aria-label={`Edit ${name}`} onClick={onEdit}>
      <Pencil />
    </Button>
    <Button variant="ghost" size="icon" aria-label={`Delete ${name}`} onClick={onDelete}>
      <Trash2 className="text-danger-600" />
    </Button>
  </div>
);

/** A URL shown in a table: truncated, opening in a new tab, announced as such. */
export const ExternalUrl = ({ url }: { url: string }) => (
  <a href={url} target="_blank" rel="noopener noreferrer" className="inline-flex max-w-full items-center gap-1 text-brand-700 hover:underline">
    <span className="truncate">{url}</span>
    <ExternalLink className="size-3.5 shrink-0" aria-hidden="true" />
    <span className="sr-only">(opens in a new tab)</span>
  </a>
);
