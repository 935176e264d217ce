import { LogOut } from "lucide-react";
import { NavLink } from "react-router";
import { Button } from "@/components/ui/button";
import { isAdmin, useUser } from "@/lib/auth";
import { cn } from "@/lib/cn";
import { useSignOut } from "./use-sign-out";

/**
 * The secondary top navigation of the codes, billing and user screens (docs/screens.md §2): three tabs
 * (Users for admins only), the signed-in username and a Logout button.
 */
export function SecondaryNav() {
  const { data: user } = useUser();
  const { signOut, isPending } = useSignOut();
  const tabs = [{ to: "/codes", label: "Codes" }, { to: "/billing", label: "Billing" }, ...(isAdmin(user) ? [{ to: "/users", label: "Users" }] : [])];
  return (
    <div className="mb-6 flex flex-col gap-3 border-b border-slate-200 pb-3 sm:flex-row sm:items-center sm:justify-between">
      <nav aria-label="Sections" className="flex gap-1">
        {tabs.map((t) => (
          <NavLink
            key={t.to}
            to={t.to}
            className={({ isActive }) =>
              cn(
                "rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900",
                isActive && "bg-slate-900 text-white hover:bg-slate-900 hover:text-white",
              )
            }
          >
            {t.label}
          </NavLink>
        ))}
      </nav>
      <div className="flex items-center gap-3 text-sm text-slate-600">
        <span>
          Logged in as <span className="font-medium text-slate-900">{user?.username}</span>
          {isAdmin(user) ? <span className="text-slate-500"> (Admin)</span> : null}
        </span>
        <Button variant="secondary" size="sm" disabled={isPending} onClick={signOut}>
          <LogOut />
          Logout
        </Button>
      </div>
    </div>
  );
}
