import { useQuery } from "@tanstack/react-query";
import { Dialog as DialogPrimitive } from "radix-ui";
import { LogOut, PanelLeft } from "lucide-react";
import { useRef } from "react";
import { NavLink, Outlet } from "react-router";
import { useSignOut } from "@/components/layout/use-sign-out";
import { Button } from "@/components/ui/button";
import { Tooltip, TooltipProvider } from "@/components/ui/tooltip";
import { NotificationBell } from "@/features/notifications/notification-bell";
import { reportTimeZoneQuery } from "@/lib/report-days";
import { useUser } from "@/lib/auth";
import { cn } from "@/lib/cn";
import { useFollowAccess } from "../follow-access";
import { allows, type Screen } from "../screens";
import { useSidebar } from "./sidebar-state";

function Brand({ compact }: { compact?: boolean }) {
  return (
    <div className="flex items-center gap-2">
      <img src="/favicon.svg" alt="" className="size-7 shrink-0" />
      {compact ? null : <span className="text-base font-semibold tracking-tight text-slate-900">Trackyard</span>}
    </div>
  );
}

interface NavProps {
  screens: Screen[];
  collapsed: boolean;
  onNavigate?: () => void;
}

function SidebarContents({ screens, collapsed, onNavigate }: NavProps) {
  const { data: user } = useUser();
  const { signOut, isPending } = useSignOut();
  const items = screens.filter((s) => allows(user, s.requires));

  return (
    <div className="flex h-full flex-col">
      <div className={cn("border-b border-slate-200 py-4", collapsed ? "px-2" : "px-4")}>
        <Brand compact={collapsed} />
        {collapsed ? null : (
          <p className="mt-2 truncate text-xs text-slate-500" title={user?.username}>
            Signed in as <span className="font-medium text-slate-700">{user?.username}</span>
          </p>
        )}
      </div>
      <nav aria-label="Main" className="flex-1 overflow-y-auto p-2">
        <ul className="grid gap-0.5">
          {items.map((item) => (
            <li key={item.path}>
              <Tooltip content={item.label} side="right" disabled={!collapsed}>
                <NavLink
                  to={item.path}
                  end={item.path === "/"}
                  onClick={onNavigate}
                  aria-label={collapsed ? item.label : undefined}
                  className={({ isActive }) =>
                    cn(
                      "flex h-9 items-center gap-3 rounded-md px-2.5 text-sm font-medium text-slate-600 transition-colors hover:bg-slate-100 hover:text-slate-900",
                      isActive && "bg-brand-50 text-brand-800 hover:bg-brand-50",
                      collapsed && "justify-center px-0",
                    )
                  }
                >
                  <item.icon className="size-4 shrink-0" aria-hidden="true" />
                  {collapsed ? null : <span className="truncate">{item.label}</span>}
                </NavLink>
              </Tooltip>
            </li>
          ))}
        </ul>
      </nav>
      <div className="border-t border-slate-200 p-2">
        <Tooltip content="Logout" side="right" disabled={!collapsed}>
          <Button
            variant="ghost"
            className={cn("w-full justify-start", collapsed && "justify-center px-0")}
            onClick={signOut}
            disabled={isPending}
            aria-label={collapsed ? "Logout" : undefined}
          >
            <LogOut />
            {collapsed ? null : "Logout"}
          </Button>
        </Tooltip>
      </div>
    </div>
  );
}

/** The signed-in frame: collapsible sidebar (slide-in panel on phones) and the screen. */
export default function AppLayout({ screens }: { screens: Screen[] }) {
  const { isMobile, expanded, mobileOpen, setMobileOpen, toggle } = useSidebar();
  const menuButton = useRef<HTMLButtonElement>(null);
  // Every data screen counts days in the report time zone: known before the first one opens, its
  // route loader can ask for the screen's data at once (app/router.tsx).
  useQuery(reportTimeZoneQuery);
  // A feature an admin grants or takes away shows here within seconds (app/follow-access.ts).
  useFollowAccess();

  // Tooltips live in the signed-in frame only, so the sign-in screen does not load them.
  return (
    <TooltipProvider>
      <div className="flex min-h-dvh">
        {isMobile ? (
          <DialogPrimitive.Root open={mobileOpen} onOpenChange={setMobileOpen}>
            <DialogPrimitive.Portal>
              <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
              <DialogPrimitive.Content
                className="fixed inset-y-0 left-0 z-50 w-[var(--sidebar-width-mobile)] bg-white shadow-xl focus:outline-none"
                // The menu button opens the sheet without being a Radix Trigger, so Radix would send
                // focus to the page body on close: back to the button, wherever the sheet was left.
                onCloseAutoFocus={(event) => {
                  event.preventDefault();
                  menuButton.current?.focus();
                }}
              >
                <DialogPrimitive.Title className="sr-only">Navigation</DialogPrimitive.Title>
                <DialogPrimitive.Description className="sr-only">Trackyard sections</DialogPrimitive.Description>
                <SidebarContents screens={screens} collapsed={false} onNavigate={() => setMobileOpen(false)} />
              </DialogPrimitive.Content>
            </DialogPrimitive.Portal>
          </DialogPrimitive.Root>
        ) : (
          <aside
            data-state={expanded ? "expanded" : "collapsed"}
            className={cn(
              "sticky top-0 h-dvh shrink-0 border-r border-slate-200 bg-white transition-[width] duration-200",
              expanded ? "w-[var(--sidebar-width)]" : "w-[var(--sidebar-width-collapsed)]",
            )}
          >
            <SidebarContents screens={screens} collapsed={!expanded} />
          </aside>
        )}
        <div className="flex min-w-0 flex-1 flex-col">
          <header className="sticky top-0 z-30 flex h-12 items-center gap-2 border-b border-slate-200 bg-white/90 px-3 backdrop-blur">
            <Button
              ref={menuButton}
              variant="ghost"
              size="icon"
              onClick={toggle}
              aria-label="Toggle sidebar"
              aria-expanded={isMobile ? mobileOpen : expanded}
              title="Toggle sidebar (Ctrl+B)"
            >
              <PanelLeft />
            </Button>
            {isMobile ? <Brand /> : null}
            <div className="ml-auto">
              <NotificationBell />
            </div>
          </header>
          <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 lg:px-8">
            <Outlet />
          </main>
        </div>
      </div>
    </TooltipProvider>
  );
}
