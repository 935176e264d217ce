import { AlertTriangle, CheckCircle2, Upload, XCircle } from "lucide-react";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast, type ToastInput } from "@/components/ui/toast";
import { useUpload, type UploadResult } from "../api";
import { uploadFailureToast, uploadSuccessToast, warningsToast } from "../upload-messages";

/** The last upload's outcome, kept in the card until the next one (a toast is gone in seconds). */
type LastUpload = { file: string; message: ToastInput; warnings: string[]; failed: boolean };

/** Warnings listed in the card; the rest are counted. */
const WARNINGS_SHOWN = 5;

function LastUploadResult({ last }: { last: LastUpload }) {
  const Icon = last.failed ? XCircle : last.warnings.length ? AlertTriangle : CheckCircle2;
  const more = last.warnings.length - WARNINGS_SHOWN;
  return (
    <div className="mt-4 grid gap-1.5 border-t border-slate-200 pt-4 text-sm" role="status" aria-label="Last upload">
      <p className="flex min-w-0 items-start gap-2 font-medium text-slate-900">
        <Icon
          className={
            last.failed
              ? "mt-0.5 size-4 shrink-0 text-danger-600"
              : last.warnings.length
                ? "mt-0.5 size-4 shrink-0 text-amber-600"
                : "mt-0.5 size-4 shrink-0 text-success-600"
          }
          aria-hidden="true"
        />
        <span className="min-w-0">
          {last.message.title}
          <span className="block truncate text-xs font-normal text-slate-500" title={last.file}>
            {last.file}
          </span>
        </span>
      </p>
      {last.message.description ? <p className="whitespace-pre-line text-slate-600">{last.message.description}</p> : null}
      {last.warnings.length ? (
        <div className="text-xs text-slate-600">
          <p className="font-medium text-amber-800">Validation Warnings</p>
          <ul className="mt-1 grid gap-0.5">
            {last.warnings.slice(0, WARNINGS_SHOWN).map((w) => (
              <li key={w} className="break-words">
                {w}
              </li>
            ))}
          </ul>
          {more > 0 ? <p className="mt-1 text-slate-500">...and {more} more</p> : null}
        </div>
      ) : null}
    </div>
  );
}

/** Admins upload the card provider's CSV export; members never see this card. */
export function UploadCard() {
  const input = useRef<HTMLInputElement>(null);
  const upload = useUpload();
  const [last, setLast] = useState<LastUpload | null>(null);

  const onFile = (file: File | undefined) => {
    if (!file) return;
    setLast(null);
    upload.mutate(file, {
      onSuccess: (result: UploadResult) => {
        const message = uploadSuccessToast(result);
        toast(message);
        setLast({ file: file.name, message, warnings: result.warnings, failed: false });
        const warnings = warningsToast(result);
        // docs/screens.md §8: the warnings follow 500 ms later (one toast shows at a time).
        if (warnings) setTimeout(() => toast(warnings), 500);
      },
      onError: (err) => {
        const message = uploadFailureToast(err);
        toast(message);
        setLast({ file: file.name, message, warnings: [], failed: true });
      },
      onSettled: () => {
        if (input.current) input.current.value = "";
      },
    });
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Upload Billing Statement</CardTitle>
        <CardDescription>Upload your transaction CSV export to view and filter transactions</CardDescription>
      </CardHeader>
      <CardContent>
        <input
          ref={input}
          type="file"
          accept=".csv,text/csv"
          className="sr-only"
          tabIndex={-1}
          aria-label="CSV file"
          onChange={(e) => onFile(e.target.files?.[0])}
        />
        <Button onClick={() => input.current?.click()} disabled={upload.isPending}>
          <Upload />
          {upload.isPending ? "Uploading..." : "Choose CSV File"}
        </Button>
        {last ? <LastUploadResult last={last} /> : null}
      </CardContent>
    </Card>
  );
}
