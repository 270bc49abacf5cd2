// The tests' stand-in for Telegram's telegram-web-app.js: the same Telegram.WebApp surface, read from
// the launch parameters Telegram puts in the page's fragment (#tgWebAppData=...), and a record of
// what the page asked of it (window.__tg) for the test to check.
(function () {
  var hash = new URLSearchParams(location.hash.slice(1));
  var initData = hash.get("tgWebAppData") || "";
  var unsafe = {};
  new URLSearchParams(initData).forEach(function (v, k) {
    if (k === "user") { try { unsafe.user = JSON.parse(v); } catch (e) { unsafe.user = null; } } else unsafe[k] = v;
  });
  var log = {main: {text: "", visible: false, clicks: 0}, haptics: [], ready: false, expanded: false};
  var handlers = [];
  window.__tg = log;
  window.Telegram = {WebApp: {
    initData: initData, initDataUnsafe: unsafe, version: "8.0", platform: "tdesktop", colorScheme: "dark",
    themeParams: {bg_color: "#17212b", text_color: "#f5f5f5", hint_color: "#708499", button_color: "#5288c1",
      button_text_color: "#ffffff"},
    ready: function () { log.ready = true; }, expand: function () { log.expanded = true; },
    MainButton: {
      setText: function (t) { log.main.text = t; return this; }, show: function () { log.main.visible = true; return this; },
      hide: function () { log.main.visible = false; return this; }, onClick: function (f) { handlers.push(f); return this; },
      click: function () { log.main.clicks++; handlers.forEach(function (f) { f(); }); }
    },
    HapticFeedback: {
      impactOccurred: function (s) { log.haptics.push("impact:" + s); return this; },
      notificationOccurred: function (s) { log.haptics.push("notification:" + s); return this; },
      selectionChanged: function () { log.haptics.push("selection"); return this; }
    }
  }};
})();
