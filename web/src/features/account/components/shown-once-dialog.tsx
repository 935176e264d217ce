import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";

interface ShownOnceProps {
  /** The credential; null: the dialog is closed. */
  value: string | null;
  onClose(): void;
  title: string;
  description: string;
  testId: string;
  copyLabel: string;
  copiedTitle: string;
}

/** A credential Trackyard shows this once (an API key, a webhook's signing secret), with a copy button. */
export function ShownOnceDialog({ value, onClose, title, description, testId, copyLabel, copiedTitle }: ShownOnceProps) {
  return (
    <Dialog
      open={value !== null}
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={title}
      description={description}
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <div className="flex items-center gap-2">
        <code
          data-testid={testId}
          className="min-w-0 flex-1 break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm text-slate-800 ring-1 ring-inset ring-slate-200"
        >
          {value}
        </code>
        {value ? <CopyButton text={value} label={copyLabel} successTitle={copiedTitle} /> : null}
      </div>
    </Dialog>
  );
}
