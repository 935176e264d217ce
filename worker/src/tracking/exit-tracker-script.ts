/**
 * The script landers load with `<script src=".../exit-tracker.js">`. It runs on someone else's page,
 * so it is plain ES5 with no dependencies, and every step sits in try/catch: a failure (storage
 * blocked, an odd DOM) leaves the lander's own links untouched rather than breaking the page.
 *
 * - reads clickId and cid from the lander URL (where /r/ put them) and keeps them in sessionStorage,
 *   so later pages of the same lander still know the click;
 * - points offer links at `{exitBase}/click?clickId=..&cid=..`: elements marked `data-exit`, and
 *   links whose address is the exit URL (or /click on the host that served the script);
 * - also catches clicks on such elements added after load, and on non-link elements marked data-exit.
 */
const SOURCE = `(function (exitBase, selfBase) {
  try {
    var KEY = "trackyard.click";
    var store = null;
    try { store = window.sessionStorage; } catch (e) {}

    var param = function (name) {
      var match = new RegExp("[?&]" + name + "=([^&#]*)").exec(window.location.search || "");
      if (!match) return "";
      try { return decodeURIComponent(match[1].replace(/\\+/g, " ")); } catch (e) { return ""; }
    };
    var load = function () {
      try {
        var saved = store ? JSON.parse(store.getItem(KEY) || "null") : null;
        if (saved && typeof saved === "object") return { clickId: String(saved.clickId || ""), cid: String(saved.cid || "") };
      } catch (e) {}
      return null;
    };

    var fromUrl = { clickId: param("clickId"), cid: param("cid") };
    var saved = load();
    var click = fromUrl;
    if (fromUrl.clickId) {
      try { if (store) store.setItem(KEY, JSON.stringify(fromUrl)); } catch (e) {}
    } else if (saved && (!fromUrl.cid || fromUrl.cid === saved.cid)) {
      click = saved;
    }

    var query = [];
    if (click.clickId) query.push("clickId=" + encodeURIComponent(click.clickId));
    if (click.cid) query.push("cid=" + encodeURIComponent(click.cid));
    if (!query.length) return;
    var target = exitBase + "/click?" + query.join("&");

    var bare = function (href) {
      return String(href || "").split("#")[0].split("?")[0].replace(/\\/+$/, "");
    };
    var isExit = function (el) {
      if (!el || el.nodeType !== 1) return false;
      if (el.hasAttribute && el.hasAttribute("data-exit")) return true;
      if (String(el.tagName).toUpperCase() !== "A") return false;
      var href = bare(el.href);
      return href === exitBase + "/click" || href === selfBase + "/click";
    };
    var rewrite = function () {
      try {
        var links = document.getElementsByTagName("a");
        for (var i = 0; i < links.length; i++) {
          if (isExit(links[i])) links[i].href = target;
        }
      } catch (e) {}
    };

    document.addEventListener("click", function (event) {
      try {
        var el = event.target;
        while (el && el !== document && !isExit(el)) el = el.parentNode;
        if (!el || el === document) return;
        if (String(el.tagName).toUpperCase() === "A") {
          el.href = target;
        } else {
          if (event.preventDefault) event.preventDefault();
          window.location.href = target;
        }
      } catch (e) {}
    }, true);

    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", rewrite);
    else rewrite();
  } catch (e) {}
})`;

/**
 * The script for one host. `exitBase` is where exits go (global_exit_domain, else the host that
 * served the script); `selfBase` is that serving host, so links to its /click are recognised too.
 */
export const exitTrackerScript = (exitBase: string, selfBase: string) => `${SOURCE}(${JSON.stringify(exitBase)}, ${JSON.stringify(selfBase)});\n`;
