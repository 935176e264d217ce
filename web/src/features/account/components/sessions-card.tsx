import { LogOut, MonitorSmartphone } from "lucide-react";
import { useState } from "react";
import { Instant } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { useSessions, useSignOutOthers } from "../api";

/** Where the user is signed in: device, IP, last seen, this device first among equals; and signing the others out. */
export function SessionsCard() {
  const sessions = useSessions();
  const signOut = useSignOutOthers();
  const [confirming, setConfirming] = useState(false);
  const others = sessions.data?.filter((s) => !s.current).length ?? 0;

  const confirm = () =>
    signOut.mutate(undefined, {
      onSuccess: ({ signedOut }) => {
        toast({ title: signedOut === 1 ? "1 other session signed out" : `${signedOut} other sessions signed out` });
        setConfirming(false);
      },
      onError: (err) => toastError("Other sessions stay signed in", err, "Could not sign out the other sessions"),
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <MonitorSmartphone className="size-4 text-brand-700" aria-hidden="true" />
          Where you are signed in
        </CardTitle>
        <CardDescription>A session ends after 7 days, or sooner when it is not used for the idle time set on Settings.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {sessions.isPending ? (
          <Spinner />
        ) : sessions.isError ? (
          <p className="text-sm text-danger-600">{sessions.error.message}</p>
        ) : (
          <ul aria-label="Your sessions" className="divide-y divide-slate-100 rounded-md ring-1 ring-inset ring-slate-200">
            {sessions.data.map((s) => (
              <li key={s.key} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 px-3 py-2.5 text-sm">
                <span className="flex min-w-0 items-center gap-2 font-medium text-slate-800">
                  {s.device}
                  {s.current ? <Badge variant="success">This device</Badge> : null}
                </span>
                <span className="tabular text-slate-500">
                  {s.ip ?? "IP unknown"} · {s.current ? "now" : <Instant at={s.lastSeenAt} show="relative" />}
                </span>
              </li>
            ))}
          </ul>
        )}
        <div>
          <Button variant="secondary" onClick={() => setConfirming(true)} disabled={others === 0}>
            <LogOut />
            Sign Out Other Sessions
          </Button>
        </div>
      </CardContent>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Sign out your other sessions?"
        description={`Every other browser and device signed in as you (${others}) is signed out. This one stays signed in.`}
        confirmLabel="Sign Out Others"
        onConfirm={confirm}
        busy={signOut.isPending}
      />
    </Card>
  );
}
