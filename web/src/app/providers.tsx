import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ReauthDialogHost } from "@/components/reauth-dialog-host";
import { Toaster } from "@/components/ui/toast";
import { appQueryClient } from "./query-client";

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={appQueryClient}>
      {children}
      <ReauthDialogHost />
      <Toaster />
    </QueryClientProvider>
  );
}
