import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import { settleReauth } from "@/lib/reauth";
import type { OwnFactorsInput } from "../../../worker/src/schemas/auth";
import { OwnFactorsDialog } from "./own-factors-dialog";

/**
 * The one re-authentication dialog (lib/reauth.ts), shown by ReauthDialogHost when an admin change
 * was refused for want of a fresh password; on success the change is sent again.
 */
export default function ReauthDialog() {
  const reauth = useMutation({ mutationFn: (json: OwnFactorsInput) => unwrap(api.account.reauth.$post({ json })) });
  return (
    <OwnFactorsDialog
      open
      onOpenChange={(next) => {
        if (!next) settleReauth({ done: false, error: new Error("Cancelled: confirm your password to make this change") });
      }}
      title="Confirm it is you"
      description="Changing another user's password, role or two-factor sign-in needs your password again. It is asked at most every 5 minutes."
      submitLabel="Confirm"
      busyLabel="Checking..."
      busy={reauth.isPending}
      refusedTitle="Not confirmed"
      onSubmit={async (input) => {
        await reauth.mutateAsync(input);
        settleReauth({ done: true });
      }}
    />
  );
}
