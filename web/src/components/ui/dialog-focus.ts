import { useEffect, useLayoutEffect, useRef } from "react";

/**
 * Open dialogs, newest last, each with its way to close. A toast is a layer above every dialog
 * and would take the Escape key for itself: the toaster asks this stack to close the dialog
 * instead (toast.tsx), so one press of Escape closes what the user is looking at.
 */
const openDialogs: { close(): void }[] = [];

/** Closes the newest open dialog; false when none is open. */
export function closeTopDialog(): boolean {
  const top = openDialogs.at(-1);
  if (!top) return false;
  top.close();
  return true;
}

/**
 * Our dialogs open from a button that is not a Radix Trigger (the screens hold the open state),
 * and without a trigger Radix sends focus to the page body on close. This keeps the element that
 * had focus when the dialog opened and gives focus back to it on close, by Escape, the close
 * button, Cancel or after saving. When that element is gone (the deleted row's button), focus goes
 * to the screen's heading rather than nowhere.
 */
export function useDialogFocus(open: boolean, onOpenChange: (open: boolean) => void) {
  const opener = useRef<HTMLElement | null>(null);
  const close = useRef(onOpenChange);
  useLayoutEffect(() => {
    close.current = onOpenChange;
  });
  // A layout effect runs before Radix moves focus into the dialog (its focus scope does so in an effect).
  useLayoutEffect(() => {
    if (open && document.activeElement instanceof HTMLElement && document.activeElement !== document.body) opener.current = document.activeElement;
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const entry = { close: () => close.current(false) };
    openDialogs.push(entry);
    return () => {
      openDialogs.splice(openDialogs.indexOf(entry), 1);
    };
  }, [open]);
  return (event: Event) => {
    event.preventDefault();
    const target = opener.current?.isConnected ? opener.current : document.querySelector<HTMLElement>("main h1");
    target?.focus();
  };
}
