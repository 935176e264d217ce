import { lazy, Suspense } from "react";
import { useReauthRequested } from "@/lib/reauth";

// Its own chunk: the dialog's form and zod stay out of the everyday bundle until an admin needs it.
const ReauthDialog = lazy(() => import("./reauth-dialog"));

/** Mounted once with the app: shows the re-authentication dialog while a change waits for it (lib/reauth.ts). */
export function ReauthDialogHost() {
  const requested = useReauthRequested();
  return requested ? (
    <Suspense fallback={null}>
      <ReauthDialog />
    </Suspense>
  ) : null;
}
