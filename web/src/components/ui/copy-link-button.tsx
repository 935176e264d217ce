import { Check, Link2 } from "lucide-react";
import { Button } from "./button";
import { useCopy } from "./copy-button";

/**
 * Copies the page's address, which holds the screen's whole state (range, tab, filters, sort,
 * page): a teammate who opens it sees the same figures, as far as their own access allows.
 */
export function CopyLinkButton() {
  const { copied, copy } = useCopy("Link copied", "Could not copy the link to the clipboard");
  return (
    <Button variant="secondary" onClick={() => copy(window.location.href, "It opens this screen with the same range, filters and sort.")}>
      {copied ? <Check className="text-success-600" /> : <Link2 />}
      Copy link
    </Button>
  );
}
