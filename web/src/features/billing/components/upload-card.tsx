import { Upload } from "lucide-react";
import { useRef } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/toast";
import { useUpload } from "../api";
import { uploadFailureToast, uploadSuccessToast, warningsToast } from "../upload-messages";

/** Admins upload the card provider's CSV export; members never see this card. */
export function UploadCard() {
  const input = useRef<HTMLInputElement>(null);
  const upload = useUpload();

  const onFile = (file: File | undefined) => {
    if (!file) return;
    upload.mutate(file, {
      onSuccess: (result) => {
        toast(uploadSuccessToast(result));
        const warnings = warningsToast(result);
        // Spec §8: the warnings follow 500 ms later (one toast shows at a time).
        if (warnings) setTimeout(() => toast(warnings), 500);
      },
      onError: (err) => toast(uploadFailureToast(err)),
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
      </CardContent>
    </Card>
  );
}
