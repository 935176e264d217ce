import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button, type ButtonProps } from "./button";
import { toast } from "./toast";

/** Copies `text` to the clipboard; shows a check mark for 2 seconds (docs/screens.md §4). */
export function useCopy(successTitle = "Copied!", failure = "Could not copy code to clipboard") {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async (text: string, description?: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      toast({ title: successTitle, description });
    } catch {
      toast({ title: "Failed to copy", description: failure, variant: "destructive" });
    }
  };
  return { copied, copy };
}

interface CopyButtonProps extends Omit<ButtonProps, "onClick"> {
  text: string;
  label: string;
  successTitle?: string;
  description?: string;
}

export function CopyButton({ text, label, successTitle, description, children, ...props }: CopyButtonProps) {
  const { copied, copy } = useCopy(successTitle);
  return (
    <Button variant="secondary" size={children ? "sm" : "icon"} aria-label={label} onClick={() => copy(text, description)} {...props}>
      {copied ? <Check className="text-success-600" data-testid="copied-icon" /> : <Copy />}
      {children}
    </Button>
  );
}
