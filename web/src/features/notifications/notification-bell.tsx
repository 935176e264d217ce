import { Popover } from "radix-ui";
import { Bell } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/cn";
import { useReportTime } from "@/lib/report-time";
import { useMarkAllRead, useNotifications, type AppNotification } from "./api";

const DOT: Record<AppNotification["severity"], string> = {
  critical: "bg-danger-600",
  warning: "bg-amber-500",
  info: "bg-brand-600",
};

function Item({ n, onOpen }: { n: AppNotification; onOpen(): void }) {
  const { dateTime } = useReportTime();
  const body = (
    <div className="flex gap-2">
      <span className={cn("mt-1.5 size-2 shrink-0 rounded-full", n.readAt ? "bg-slate-300" : DOT[n.severity])} aria-hidden />
      <div className="min-w-0">
        <p className={cn("text-sm text-slate-900", n.readAt ? "font-normal" : "font-semibold")}>{n.title}</p>
        <p className="line-clamp-2 text-xs text-slate-600">{n.text}</p>
        <p className="mt-0.5 text-xs text-slate-400">
          <time dateTime={n.createdAt}>{dateTime(n.createdAt)}</time>
        </p>
      </div>
    </div>
  );
  return (
    <li>
      {n.link ? (
        <Link to={n.link} onClick={onOpen} className="block rounded-md px-2 py-2 hover:bg-slate-50">
          {body}
        </Link>
      ) : (
        <div className="px-2 py-2">{body}</div>
      )}
    </li>
  );
}

/** The header's bell: the unread count, and a list of the latest alerts with a link to each. */
export function NotificationBell() {
  const [open, setOpen] = useState(false);
  const list = useNotifications();
  const markAll = useMarkAllRead();
  const { timeZone } = useReportTime();
  const unread = list.data?.unread ?? 0;
  const items = list.data?.items ?? [];
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger asChild>
        <Button variant="ghost" size="icon" className="relative" aria-label={unread ? `Notifications, ${unread} unread` : "Notifications"}>
          <Bell />
          {unread ? (
            <span
              className="absolute -right-0.5 -top-0.5 flex h-4 min-w-4 items-center justify-center rounded-full bg-danger-600 px-1 text-[10px] font-semibold leading-none text-white"
              data-testid="unread-count"
            >
              {unread > 99 ? "99+" : unread}
            </span>
          ) : null}
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={6}
          className="z-50 w-[min(24rem,calc(100vw-1rem))] rounded-card border border-slate-200 bg-white shadow-xl"
          aria-label="Notifications"
        >
          <div className="flex items-center justify-between border-b border-slate-200 px-3 py-2">
            <div>
              <h2 className="text-sm font-semibold text-slate-900">Notifications</h2>
              <p className="text-xs text-slate-500">Times in {timeZone}</p>
            </div>
            <Button variant="link" size="sm" disabled={!unread || markAll.isPending} onClick={() => markAll.mutate()}>
              Mark all read
            </Button>
          </div>
          {list.isError ? (
            <p className="p-4 text-sm text-danger-600">{list.error.message}</p>
          ) : items.length === 0 ? (
            <p className="p-4 text-center text-sm text-slate-500">{list.isPending ? "Loading..." : "No notifications yet."}</p>
          ) : (
            <ul className="max-h-[min(28rem,calc(100dvh-6rem))] divide-y divide-slate-100 overflow-y-auto p-1">
              {items.map((n) => (
                <Item key={n.id} n={n} onOpen={() => setOpen(false)} />
              ))}
            </ul>
          )}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
