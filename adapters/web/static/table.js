// The web table's page: draws the states the server pushes (each one a state the table reached) and
// sends a seat's actions. No build step: plain JavaScript, served as it is.
"use strict";
(() => {
  const T = {
    en: {
      hand: "Hand", level: "level", trump: "trump", nt: "no trump", undecided: "undecided", points: "points",
      dealer: "dealer", cards: "cards", you: "you", play: "Play", bury: "Bury", clear: "Clear", hint: "Hint",
      pass: "Pass", revolt: "Revolution", declare: "Declare", chao: "炒底", lastTrick: "Last trick",
      won: "won", yourTurn: "Your turn", waiting: "Waiting for", lobby: "Waiting for players to sit down",
      reconnecting: "Connection lost, reconnecting…", paused: "Paused", finished: "The match is over",
      replay: "Replays", close: "Close", prev: "◀ Trick", next: "Trick ▶", trick: "Trick",
      teamA: "Team A", teamB: "Team B", phase: {dealing: "dealing", declaring: "declaring", burying: "burying",
        chao: "炒底", playing: "playing", hand_over: "hand over", match_over: "match over"},
      refused: {forged: "This link is not valid.", expired: "This link has expired: open the table again from the chat.",
        malformed: "This link is not valid.", no_table: "This table is closed.",
        not_seated: "Open this table from its group's link."},
      bury8: (n) => `Bury (${n}/8)`, selectFirst: "Select cards first.", kitty: "Kitty", noHand: "No finished hand yet.",
    },
    zh: {
      hand: "第", level: "打", trump: "主", nt: "无主", undecided: "未定", points: "分",
      dealer: "庄", cards: "张", you: "你", play: "出牌", bury: "扣底", clear: "清除", hint: "提示",
      pass: "不要", revolt: "革命", declare: "亮主", chao: "炒底", lastTrick: "上一轮",
      won: "赢", yourTurn: "轮到你了", waiting: "等待", lobby: "等待玩家入座",
      reconnecting: "连接中断，正在重连…", paused: "已暂停", finished: "比赛结束",
      replay: "回放", close: "关闭", prev: "◀ 上一轮", next: "下一轮 ▶", trick: "第几轮",
      teamA: "A队", teamB: "B队", phase: {dealing: "发牌", declaring: "亮主", burying: "扣底",
        chao: "炒底", playing: "出牌", hand_over: "本局结束", match_over: "比赛结束"},
      refused: {forged: "链接无效。", expired: "链接已过期：请从聊天中重新打开牌桌。", malformed: "链接无效。",
        no_table: "这张牌桌已关闭。", not_seated: "请从群里的链接打开这张牌桌。"},
      bury8: (n) => `扣底 (${n}/8)`, selectFirst: "请先选牌。", kitty: "底牌", noHand: "还没有打完的局。",
    },
  };
  const SUIT = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const hashParams = new URLSearchParams(location.hash.slice(1));
  const tg = window.Telegram && window.Telegram.WebApp && window.Telegram.WebApp.initData ? window.Telegram.WebApp : null;

  let st = null;          // the newest state shown
  let selected = new Set(); // indexes into st.hand
  let selectedFor = "";   // the hand the selection belongs to
  let lang = localStorage.getItem("tractor.lang") || "";
  let ws = null, retry = 0, refused = false, keys = 0;
  let deadlineAt = null;
  const pending = new Map();

  const auth = tg ? {tg: tg.initData} : {link: hashParams.get("k") || ""};
  let matchId = parseInt(params.get("m") || "", 10);
  const start = /^m(\d+)/.exec(tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param || "");
  if (start) matchId = parseInt(start[1], 10);
  if (isNaN(matchId)) matchId = null;

  const L = () => T[lang === "en" ? "en" : lang === "zh" ? "zh" : (st && st.lang && st.lang.startsWith("zh") ? "zh" : "en")];
  const cardText = (c) => c === "BJ" ? "大王" : c === "SJ" ? "小王" : (c[0] === "T" ? "10" : c[0]) + SUIT[c[1]];
  const isRed = (c) => c === "BJ" || c[1] === "H" || c[1] === "D";
  const isTrump = (c, t) => c === "BJ" || c === "SJ" || (t && (c[0] === t.level || (t.trump && t.trump !== "NT" && c[1] === t.trump)));
  const seatName = (s) => { const x = st.seats[s]; return x ? x.name + (x.ai ? " 🤖" : "") : "—"; };
  const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[ch]));

  function theme() {
    if (!tg) return;
    tg.ready(); tg.expand();
    const p = tg.themeParams || {};
    const r = document.documentElement.style;
    if (p.bg_color) r.setProperty("--bg", p.bg_color);
    if (p.text_color) r.setProperty("--fg", p.text_color);
    if (p.button_color) r.setProperty("--btn", p.button_color);
    if (p.button_text_color) r.setProperty("--btn-fg", p.button_text_color);
    if (p.hint_color) r.setProperty("--muted", p.hint_color);
  }

  function say(text, bad) {
    const n = $("notice");
    n.textContent = text || "";
    n.className = bad ? "bad" : "";
    if (bad && tg && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred("error");
  }

  // ----- the socket -----
  function connect() {
    if (refused || matchId === null && !auth.tg) return;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    ws = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify({t: "hello", auth, match: matchId, since: st ? st.version : 0}));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "state") { retry = 0; $("conn").hidden = true; onState(msg); }
      else if (msg.type === "notice") onNotice(msg);
      else if (msg.type === "refused") { refused = true; say(L().refused[msg.reason] || msg.reason, true);
        if (msg.reason === "no_table") openReplay(); }
    };
    ws.onclose = (ev) => {
      ws = null;
      if (ev.code === 4401 || refused) return;
      $("conn").hidden = false; $("conn").textContent = L().reconnecting;
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, Math.min(250 * 2 ** retry, 5000));
    };
  }

  function send(a, cards) {
    if (!ws || ws.readyState !== 1) { say(L().reconnecting, true); return; }
    const key = `${Date.now().toString(36)}.${++keys}`;
    pending.set(key, a);
    ws.send(JSON.stringify({t: "act", a, cards: cards || [], key, v: st ? st.version : undefined}));
  }

  function onNotice(msg) {
    const a = pending.get(msg.key);
    pending.delete(msg.key);
    if (msg.ok) { say(""); return; }
    say(msg.text || L().refused.forged, a !== "hint");
  }

  function onState(msg) {
    // Only ever forward: a state older than the one shown (a late frame) is not drawn.
    if (st && msg.match === st.match && msg.version < st.version) return;
    const handKey = (msg.hand || []).join(",") + "|" + (msg.table ? msg.table.phase : "");
    if (handKey !== selectedFor) { selected = new Set(); selectedFor = handKey; }
    const buryNow = msg.options && msg.options.bury;
    if (buryNow && selected.size === 0 && !(st && st.options && st.options.bury)) {
      const want = [...buryNow];
      (msg.hand || []).forEach((c, i) => { const j = want.indexOf(c); if (j >= 0) { want.splice(j, 1); selected.add(i); } });
    }
    const wasMyTurn = st && st.options && st.options.play;
    st = msg;
    deadlineAt = msg.deadline ? performance.now() / 1000 + msg.deadline.left : null;
    if (!wasMyTurn && msg.options && msg.options.play && tg && tg.HapticFeedback) tg.HapticFeedback.impactOccurred("light");
    draw();
  }

  // ----- drawing -----
  function place(s) { // where seat s sits on my screen: me at the bottom, partner on top
    const me = st.seat === null || st.seat === undefined ? 0 : st.seat;
    return ["me", "right", "top", "left"][(s - me + 4) % 4];
  }

  function mini(c, extra) {
    return `<span class="mini${isRed(c) ? " red" : ""}${extra || ""}">${esc(cardText(c))}</span>`;
  }

  function draw() {
    const t = st.table, l = L();
    document.documentElement.lang = l === T.zh ? "zh" : "en";
    $("replay-btn").textContent = l.replay;
    $("replay-btn").hidden = !(t && (t.hand_no > 1 || t.phase === "hand_over" || t.phase === "match_over"));
    if (!t) {
      $("info").textContent = l.lobby;
      for (let s = 0; s < 4; s++) $("seat-" + place(s)).innerHTML = `<div class="name">${esc(seatName(s))}</div>`;
      $("hand").innerHTML = ""; $("actions").innerHTML = ""; return;
    }
    const trump = t.trump === "NT" ? l.nt : t.trump ? SUIT[t.trump] : l.undecided;
    const lv = (x) => x === "T" ? "10" : x;
    const hn = l === T.zh ? `${l.hand}${t.hand_no}局` : `${l.hand} ${t.hand_no}`;
    $("info").textContent = `${hn} · ${l.level} ${lv(t.level)} · ${l.trump} ${trump} · A ${lv(t.levels[0])} B ${lv(t.levels[1])} · ` +
      `${t.defender_points} ${l.points} · ${st.paused ? l.paused : l.phase[t.phase] || t.phase}`;
    const trick = new Map((t.trick || []).map(([s, cs]) => [s, cs]));
    const waiting = t.phase === "playing" && t.turn !== null ? [t.turn] : (t.to_act || []);
    for (let s = 0; s < 4; s++) {
      const el = $("seat-" + place(s));
      el.className = `seat team${s % 2}` + (waiting.includes(s) ? " turn" : "");
      const count = t.hand_counts ? t.hand_counts[s] : "";
      const tags = [t.dealer === s ? `★${l.dealer}` : "", count !== "" ? `${count}${l === T.zh ? l.cards : " " + l.cards}` : ""]
        .filter(Boolean).join(" ");
      el.innerHTML = `<div class="name">${esc(seatName(s))}${s === st.seat ? ` (${l.you})` : ""}</div>` +
        `<div class="tags">${esc(tags)}</div><div class="played" data-seat="${s}">` +
        (trick.get(s) || []).map((c) => mini(c)).join("") + "</div>";
    }
    const decl = t.declaration;
    $("center").textContent = decl && t.phase !== "playing" ? `${seatName(decl.seat)}: ${decl.cards.map(cardText).join(" ")}` :
      (st.status === "finished" ? l.finished : "");
    if (t.last_trick && t.last_trick.length) {
      $("last").innerHTML = `${esc(l.lastTrick)}: ` + t.last_trick.map(([s, cs]) => `${esc(seatName(s))} ` +
        cs.map((c) => mini(c, s === t.last_trick_winner ? " win" : "")).join("")).join(" · ");
    } else $("last").textContent = "";
    drawHand(); drawActions(); tick();
  }

  function drawHand() {
    const hand = st.hand || [], t = st.table, el = $("hand");
    el.hidden = st.seat === null || st.seat === undefined;
    let prev = null;
    el.innerHTML = hand.map((c, i) => {
      const tr = isTrump(c, t);
      const group = tr ? "T" : c[1];
      const gap = prev !== null && group !== prev ? " gap" : "";
      prev = group;
      const joker = c === "BJ" || c === "SJ";
      const face = joker ? `<span>${c === "BJ" ? "大" : "小"}</span><span>王</span>` : `<span>${c[0] === "T" ? "10" : c[0]}</span><span class="s">${SUIT[c[1]]}</span>`;
      return `<button type="button" class="card${isRed(c) ? " red" : ""}${tr ? " trump" : ""}${joker ? " joker" : ""}${gap}" ` +
        `data-i="${i}" aria-pressed="${selected.has(i)}" aria-label="${esc(cardText(c))}">${face}</button>`;
    }).join("");
  }

  function button(label, cls, fn, disabled, a, cards) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.className = cls || ""; b.disabled = !!disabled;
    if (a) b.dataset.a = a;
    if (cards) b.dataset.cards = cards.join("");
    b.addEventListener("click", fn);
    return b;
  }

  let mainAction = null;
  function drawActions() {
    const nav = $("actions"), o = st.options || {}, l = L(), hand = st.hand || [];
    nav.innerHTML = "";
    mainAction = null;
    const picked = () => [...selected].sort((a, b) => a - b).map((i) => hand[i]);
    for (const cs of o.declare || []) nav.append(button(`${l.declare} ${cs.map(cardText).join("")}`, "primary", () => send("declare", cs), false, "declare", cs));
    for (const cs of o.chao || []) nav.append(button(`${l.chao} ${cs.map(cardText).join("")}`, "primary", () => send("chao", cs), false, "chao", cs));
    if (o.pass) nav.append(button(l.pass, "", () => send("pass"), false, "pass"));
    if (o.bury) {
      mainAction = {label: l.bury8(selected.size), ok: selected.size === 8, fn: () => send("bury", picked())};
      nav.append(button(mainAction.label, "primary", mainAction.fn, !mainAction.ok, "bury"));
    }
    if (st.table && st.table.phase === "playing" && st.seat !== null && st.seat !== undefined) {
      const mine = !!o.play;
      mainAction = {label: l.play, ok: mine && selected.size > 0, fn: () => selected.size ? send("play", picked()) : say(l.selectFirst, true)};
      nav.append(button(l.play, "primary", mainAction.fn, !mainAction.ok, "play"));
      nav.append(button(l.hint, "", () => send("hint"), !mine, "hint"));
    }
    if ((o.bury || (st.table && st.table.phase === "playing")) && hand.length) nav.append(button(l.clear, "", () => { selected.clear(); drawHand(); drawActions(); }, false, "clear"));
    if (o.revolt) nav.append(button(l.revolt, "", () => send("revolt"), false, "revolt"));
    if (tg && tg.MainButton) {
      const mb = tg.MainButton;
      if (mainAction && mainAction.ok) { mb.setText(mainAction.label); mb.show(); } else mb.hide();
    }
  }

  function tick() {
    const el = $("clock");
    if (deadlineAt === null || !st || st.paused) { el.textContent = ""; return; }
    const left = Math.max(0, Math.ceil(deadlineAt - performance.now() / 1000));
    const mine = st.options && (st.options.play || st.options.bury || (st.options.chao || []).length || st.options.pass);
    el.textContent = (mine ? L().yourTurn + " " : "") + `${left}s`;
  }

  // ----- replays -----
  let rp = null;
  async function openReplay(hand) {
    const body = {auth, match: matchId, hand: hand || 0};
    if (rp && rp.match) body.replay = rp.match;
    const r = await fetch("/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await r.json();
    const el = $("replay");
    el.hidden = false;
    if (!r.ok) { el.textContent = L().noHand; return; }
    rp = {...data, at: 0};
    drawReplay();
  }

  function drawReplay() {
    const el = $("replay"), l = L(), tr = rp.tricks[rp.at] || {plays: [], winner: null, points: 0};
    const name = (s) => rp.seats[s] || "—";
    const hands = rp.hands.map((h) => `<button type="button" data-hand="${h}" class="${h === rp.hand ? "primary" : ""}">${h}</button>`).join("");
    const trump = rp.trump === "NT" ? l.nt : rp.trump ? SUIT[rp.trump] : "?";
    el.innerHTML = `<div>${esc(l.replay)} · ${esc(l.hand)} ${rp.hand} · ${esc(l.trump)} ${trump} · ${esc(l.trick)} ${rp.at + 1}/${rp.tricks.length}</div>` +
      `<div class="nav">${hands}</div><div class="trick">` +
      tr.plays.map(([s, cs]) => `<div class="${s === tr.winner ? "win" : ""}">${esc(name(s))}<br>${cs.map((c) => mini(c)).join("")}</div>`).join("") +
      `</div><div>${tr.points ? `+${tr.points} ${esc(l.points)}` : ""}</div>` +
      (rp.at === rp.tricks.length - 1 && rp.result ? `<div>${esc(l.kitty)}: ${(rp.result.kitty || []).map((c) => mini(c)).join("")} · ${rp.result.defender_points} ${esc(l.points)}</div>` : "") +
      `<div class="nav"><button type="button" id="rp-prev">${l.prev}</button><button type="button" id="rp-next">${l.next}</button>` +
      `<button type="button" id="rp-close">${l.close}</button></div>`;
    $("rp-prev").disabled = rp.at === 0;
    $("rp-next").disabled = rp.at >= rp.tricks.length - 1;
    $("rp-prev").onclick = () => { rp.at--; drawReplay(); };
    $("rp-next").onclick = () => { rp.at++; drawReplay(); };
    $("rp-close").onclick = () => { el.hidden = true; };
    el.querySelectorAll("[data-hand]").forEach((b) => { b.onclick = () => openReplay(parseInt(b.dataset.hand, 10)); });
  }

  // ----- input: taps and keys -----
  $("hand").addEventListener("click", (ev) => {
    const b = ev.target.closest(".card");
    if (!b) return;
    const i = parseInt(b.dataset.i, 10);
    if (selected.has(i)) selected.delete(i); else selected.add(i);
    b.setAttribute("aria-pressed", String(selected.has(i)));
    if (tg && tg.HapticFeedback) tg.HapticFeedback.selectionChanged();
    drawActions();
  });
  $("hand").addEventListener("keydown", (ev) => {
    const b = ev.target.closest(".card");
    if (!b || (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft")) return;
    const next = ev.key === "ArrowRight" ? b.nextElementSibling : b.previousElementSibling;
    if (next) { next.focus(); ev.preventDefault(); }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ((ev.key === "p" || ev.key === "Enter" && ev.target.classList && !ev.target.closest("button")) && mainAction && mainAction.ok) mainAction.fn();
    else if (ev.key === "c") { selected.clear(); if (st) { drawHand(); drawActions(); } }
    else if (ev.key === "h" && st && st.options && st.options.play) send("hint");
  });
  $("lang").addEventListener("click", () => {
    lang = L() === T.zh ? "en" : "zh";
    localStorage.setItem("tractor.lang", lang);
    if (st) draw();
    if (rp && !$("replay").hidden) drawReplay();
  });
  $("replay-btn").addEventListener("click", () => openReplay(0));
  if (tg && tg.MainButton) tg.MainButton.onClick(() => { if (mainAction && mainAction.ok) mainAction.fn(); });
  setInterval(tick, 250);
  theme();
  if (params.get("replay")) openReplay(parseInt(params.get("replay"), 10) || 0); else connect();
  window.tractor = {state: () => st, selected: () => [...selected], online: () => !!ws && ws.readyState === 1};
})();
