import { Check, Link2 } from "lucide-react";
import { Button } from "./button";
import { useCopy } from "./copy-button";
import { Tooltip } from "./tooltip";

/**
 * Copies the page's address, which holds the screen's whole state (range, tab, filters, sort,
 * page): a teammate who opens it sees the same figures, as far as their own access allows. An icon
 * with a tooltip, so a screen's header keeps its other actions on one line.
 */
export function CopyLinkButton() {
  const { copied, copy } = useCopy("Link copied", "Could not copy the link to the clipboard");
  return (
    <Tooltip content="Copy a link to this screen as it is now">
      <Button
        variant="secondary"
        size="icon"
        aria-label="Copy link"
        onClick={() => copy(window.location.href, "It opens this screen with the same range, filters and sort.")}
      >
        {copied ? <Check className="text-success-600" /> : <Link2 />}
      </Button>
    </Tooltip>
  );
}
