// The web table's page: draws the scene the server pushes (each one a state the table reached, the same
// scene the chats and the terminal draw) in the words of the chats' catalogs, and sends a seat's acts.
// No build step: plain JavaScript, served as it is. One file past 400 lines: the page is one closure
// (its state, the socket, the drawing, replays and input share it), and splitting it would need a
// loader or a build step the page does without.
"use strict";
(() => {
  const SUIT = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const LANGS = ["zh", "zh-Hant", "en"], LANG_MARK = {zh: "简", "zh-Hant": "繁", en: "En"};
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const hashParams = new URLSearchParams(location.hash.slice(1));
  const tg = window.Telegram && window.Telegram.WebApp && window.Telegram.WebApp.initData ? window.Telegram.WebApp : null;

  let st = null;            // the newest frame shown
  let selected = new Set(); // indexes into the hand's cards
  let selectedFor = "";     // the hand the selection belongs to
  let chosen = localStorage.getItem("tractor.lang") || ""; // the person's pick of language, else the seat's
  const words = {};         // lang -> the catalog served at /words/<lang>.json
  let ws = null, retry = 0, refused = null, keys = 0, deadlineAt = null, recall = false;
  let summaryOpen = 0, summaryDone = 0; // the hand whose summary is shown, and the last one put away
  // A best of three goes on at another table: the page follows it there, FOLLOW_MS after its game's
  // end was drawn (or at a tap), and says the series' count there; `tries` while it is being opened.
  const FOLLOW_MS = 6000;
  let followed = null, followTimer = 0, tries = 0, carried = "";
  const pending = new Map();
  // When this page sent each act and first drew each version (ms, wall clock, the last 400): the
  // play-to-screen latency the browser test measures across the four pages of a table.
  const timeline = {sent: [], shown: []};
  let lastShown = -1;
  const mark = (list, entry) => { list.push(entry); if (list.length > 400) list.shift(); };
  const now = () => performance.timeOrigin + performance.now();

  const auth = tg ? {tg: tg.initData} : {link: hashParams.get("k") || ""};
  let matchId = parseInt(params.get("m") || "", 10);
  const start = /^m(\d+)/.exec(tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param || "");
  if (start) matchId = parseInt(start[1], 10);
  if (isNaN(matchId)) matchId = null;

  // ----- words -----
  const lang = () => LANGS.includes(chosen) ? chosen : st && LANGS.includes(st.lang) ? st.lang : "en";
  async function load(l) {
    if (!words[l]) {
      const r = await fetch(`/words/${encodeURIComponent(l)}.json`);
      words[l] = await r.json();
    }
    return words[l];
  }
  // A catalog text with its placeholders filled: {name} -> params.name (escaped unless raw).
  function w(key, p, raw) {
    const cat = words[lang()] || words.en, forms = cat && cat.words[key];
    if (!forms) return key;
    const n = p && (p.n !== undefined ? p.n : p.points);
    const text = forms.length > 1 && cat.plural === "en" && Number(n) !== 1 ? forms[1] : forms[0];
    return text.replace(/\{(\w+)\}/g, (m, k) => p && p[k] !== undefined ? (raw && raw.includes(k) ? p[k] : esc(p[k])) : m);
  }
  const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[ch]));
  const cardText = (c) => c === "BJ" ? "大王" : c === "SJ" ? "小王" : SUIT[c[1]] + (c[0] === "T" ? "10" : c[0]);
  const cardsText = (cs) => cs.map(cardText).join(" ");
  const rank = (x) => x === null || x === undefined ? "?" : x === "T" ? "10" : x;
  const isRed = (c) => c === "BJ" || c[1] === "H" || c[1] === "D";
  const team = (t) => w(t === 0 ? "team.0" : "team.1");
  const T = () => st.scene.table;
  const seatName = (s) => {
    const f = T().seats[s];
    return f && f.taken ? f.name + (f.is_ai ? w("seat.ai_mark") : f.away ? w("seat.away_mark") : "") : w("seat.empty");
  };
  const seatLabel = (s) => "①②③④"[s] + seatName(s);
  // A team as the table names it: "Team A (①Ann, ③Bo)" (as bot/scene/text.py's side_text).
  const sideText = (k) => w("result.side", {team: team(k),
    who: T().seats.filter((f) => f.team === k).map((f) => seatLabel(f.seat)).join(", ")});
  const trumpText = (t) => t.suit === "NT" ? w("table.no_trump") : t.suit ? SUIT[t.suit] :
    t.declared ? w("hand.trump_so_far", {trump: t.declared.suit === "NT" ? w("table.no_trump") : SUIT[t.declared.suit]}) :
      w("table.trump_undecided");

  function theme() {
    if (!tg) return;
    tg.ready(); tg.expand();
    const p = tg.themeParams || {}, r = document.documentElement.style;
    for (const [k, v] of [["bg_color", "--bg"], ["text_color", "--fg"], ["button_color", "--btn"],
      ["button_text_color", "--btn-fg"], ["hint_color", "--muted"]]) if (p[k]) r.setProperty(v, p[k]);
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
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = () => {
      ws.send(JSON.stringify({t: "hello", auth, match: matchId, since: st ? st.version : 0}));
      if (document.hidden) seen();
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "state") { retry = 0; $("conn").hidden = true; onState(msg); }
      else if (msg.type === "notice") onNotice(msg);
      else if (msg.type === "moved") { // the series' next game, and a link of its table
        matchId = msg.match; delete auth.tg; auth.link = msg.link; tries = 0;
        if (!tg) history.replaceState(null, "", `?m=${matchId}#k=${encodeURIComponent(msg.link)}`);
      } else if (msg.type === "refused" && msg.reason === "no_table" && tries > 0) {
        tries--; // the next game is not open yet
      } else if (msg.type === "refused") {
        if (msg.reason !== "flood") refused = msg.reason; // too much sent: it comes back after a pause
        load(lang()).then(() => say(w("web.refused_" + msg.reason), true));
        if (msg.reason === "no_table") openReplay();
      }
    };
    ws.onclose = (ev) => {
      ws = null;
      if (ev.code === 4302 || (ev.code === 4401 && tries > 0 && !refused)) { // moved, or not there yet
        setTimeout(connect, ev.code === 4302 ? 0 : 1000); return;
      }
      if (ev.code === 4401 || ev.code === 4409 || refused) return;
      $("conn").hidden = false; $("conn").textContent = w("web.reconnecting");
      retry = ev.code === 4429 ? 6 : Math.min(retry + 1, 6);
      setTimeout(connect, Math.min(250 * 2 ** retry, 5000));
    };
  }

  // Whether the page is shown: a seat's pages all hidden for a while (another tab, the phone asleep)
  // hand the turn notices back to the person's chat, until one is shown again.
  function seen() {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({t: "seen", hidden: document.hidden}));
  }
  document.addEventListener("visibilitychange", seen);

  function follow() {
    clearTimeout(followTimer);
    if (!st || followed !== st.match) return;
    const r = T().result;
    carried = r && r.series && r.winner !== null ? seriesLine(r) : ""; // said on the next game's table
    matchId = st.match; tries = 5;
    if (ws) { const old = ws; ws = null; old.onclose = null; old.close(); }
    connect();
  }

  function send(a, cards) {
    if (!ws || ws.readyState !== 1) { say(w("web.reconnecting"), true); return; }
    const key = `${Date.now().toString(36)}.${++keys}`;
    pending.set(key, a);
    mark(timeline.sent, [a, st ? st.version : null, now()]);
    ws.send(JSON.stringify({t: "act", a, cards: cards || [], key, v: st ? st.version : undefined}));
  }

  function onNotice(msg) {
    const a = pending.get(msg.key);
    pending.delete(msg.key);
    if (msg.ok) { say(""); return; }
    // refused before it reached the table: the code's own words; by the table: its words in the seat's language
    say(msg.code ? w("web.refused_" + msg.code) : msg.text, a !== "hint");
  }

  const hand = () => (st && st.scene.hand) || null;
  const can = () => (hand() && T().status === "active" && hand().choices) || {}; // nothing to do while paused

  function onState(msg) {
    // Only ever forward: a state older than the one shown (a late frame) is not drawn.
    if (st && msg.match === st.match && msg.version < st.version) return;
    const h = msg.scene.hand, t = msg.scene.table;
    const handKey = (h ? h.cards.join(",") : "") + "|" + t.phase;
    if (handKey !== selectedFor) { selected = new Set(); selectedFor = handKey; }
    if (h && h.choices.bury && selected.size === 0 && !(st && can().bury)) {
      const want = [...h.choices.bury_pick]; // the AI's pick of 8 comes selected: one tap buries it
      h.cards.forEach((c, i) => { const j = want.indexOf(c); if (j >= 0) { want.splice(j, 1); selected.add(i); } });
    }
    if (st && msg.match !== st.match) { summaryOpen = summaryDone = 0; lastShown = -1; } // another game
    const wasMyTurn = st && can().play, before = st && st.match === msg.match ? T().hand_no : null;
    st = msg;
    const x = t.result && t.result.series;
    if (x && !x.over && msg.status === "finished" && followed !== msg.match) {
      followed = msg.match; followTimer = setTimeout(follow, FOLLOW_MS);
    }
    if (t.summary && t.summary.hand_no > summaryDone && (t.phase === "hand_over" || t.phase === "match_over" ||
        before === t.summary.hand_no)) summaryOpen = t.summary.hand_no; // the end of a hand stays until put away
    deadlineAt = t.turn.clock ? performance.now() / 1000 + t.turn.clock.seconds : null;
    if (!wasMyTurn && can().play && tg && tg.HapticFeedback) tg.HapticFeedback.impactOccurred("light");
    load(lang()).then(() => {
      draw();
      if (carried && msg.match !== followed) { say(carried); carried = ""; }
      if (msg.version > lastShown) { lastShown = msg.version; mark(timeline.shown, [msg.version, now()]); }
    });
  }

  // ----- drawing -----
  function place(s) { // where seat s sits on my screen: me at the bottom, partner on top
    const me = st.seat === null || st.seat === undefined ? 0 : st.seat;
    return ["me", "right", "top", "left"][(s - me + 4) % 4];
  }

  const mini = (c, extra) => `<span class="mini${isRed(c) ? " red" : ""}${extra || ""}">${esc(cardText(c))}</span>`;

  function draw() {
    const t = T(), l = lang();
    document.documentElement.lang = l;
    $("lang").textContent = LANG_MARK[LANGS[(LANGS.indexOf(l) + 1) % LANGS.length]];
    $("replay-btn").textContent = w("web.replay");
    $("replay-btn").hidden = !(t.hand_no > 1 || t.summary);
    if (t.phase === null) {
      $("info").textContent = w("web.lobby");
      for (let s = 0; s < 4; s++) $("seat-" + place(s)).innerHTML = `<div class="name">${esc(seatLabel(s))}</div>`;
      $("hand").innerHTML = ""; $("actions").innerHTML = ""; return;
    }
    $("info").textContent = [w("web.hand", {hand: t.hand_no}), w("web.level", {level: rank(t.level)}),
      w("web.trump", {trump: trumpText(t.trump)}), t.status === "paused" ? w("table.paused") :
      t.result && t.result.winner === null ? w("reason.abandoned") :
      w(t.board && t.phase === "match_over" ? "phase.board_over" : "phase." + t.phase)].join(" · ");
    // each team on its own: its level, then whether it declares or defends and its points (the
    // defenders' count, penalties included, is the one that decides the hand)
    const defenders = t.declarers === null ? null : 1 - t.declarers;
    $("score").innerHTML = [0, 1].map((k) => `<div class="team team${k}${k === defenders ? " defends" : ""}">` +
      `<div>${w("web.team_level", {team: team(k), level: rank(t.levels[k])})}</div><div>` +
      (k === defenders ? `<b>${w("web.defends")}</b> · ` : k === t.declarers ? `${w("web.declares")} · ` : "") +
      `${w("web.points", {points: k === defenders ? t.defender_points : t.points[k]})}</div></div>`).join("");
    const k = t.stake;
    $("stake").hidden = !k;
    if (k) $("stake").textContent = w("web.stake", {outcome: outcome(k.winner, k.side, k.levels_up)}) +
      (k.next_at === null ? "" : " " + w("web.next_step", {points: k.next_at}));
    const waiting = t.turn.seats, shown = recall && t.last_trick ? t.last_trick.plays : t.trick;
    const played = new Map(shown.map((p) => [p.seat, p.cards]));
    for (let s = 0; s < 4; s++) {
      const f = t.seats[s], el = $("seat-" + place(s));
      el.className = `seat team${f.team}` + (waiting.includes(s) ? " turn" : "");
      const tags = [f.dealer ? `★${w("web.dealer")}` : "", f.cards !== null ? w("table.cards_left", {n: f.cards}).replace(/^·\s*/, "") : ""];
      el.innerHTML = `<div class="name">${esc(seatLabel(s))}${s === st.seat ? ` (${w("web.you")})` : ""}</div>` +
        `<div class="tags">${tags.filter(Boolean).join(" ")}</div>`;
      // framed: the last trick's winner while it is recalled, else the seat winning this trick so far
      const win = (recall ? t.last_trick && t.last_trick.winner : t.trick.length > 1 && t.winning) === s ? " win" : "";
      $("slot-" + place(s)).innerHTML = (played.get(s) || []).map((c) => mini(c, win)).join("");
      $("slot-" + place(s)).dataset.seat = s;
    }
    const d = t.trump.declared;
    $("center-note").textContent = t.result ? w(t.result.board ? "phase.board_over" : "result.match_title") :
      d && t.phase !== "playing" && !t.trick.length ? w("web.declared", {who: seatLabel(d.seat), cards: cardsText(d.cards)}) :
      !recall && t.trick.length > 1 && t.winning !== null ? w("table.winning", {who: seatLabel(t.winning)}) : "";
    const last = t.last_trick;
    $("last").hidden = !last;
    $("last").setAttribute("aria-pressed", String(recall && !!last));
    if (last) $("last").innerHTML = `${w("web.last_trick")}: ` + last.plays.map((p) => `${esc(seatLabel(p.seat))} ` +
      p.cards.map((c) => mini(c, p.seat === last.winner ? " win" : "")).join("")).join(" · ") +
      (last.points ? ` ${last.counts ? "+" : ""}${w("web.points", {points: last.points})}` : "");
    drawSummary(); drawHand(); drawActions(); tick();
  }

  // who wins a hand and how, as the chats say it: keeps or takes over the deal, and the levels climbed
  function outcome(winner, side, up) {
    const key = up ? (side === "declarers" ? "result.declarers_win" : "result.defenders_win") :
      (side === "declarers" ? "result.declarers_hold" : "result.defenders_take_over");
    return w(key, {team: team(winner), n: up});
  }

  function summaryLines(s) {
    const out = [w("result.hand_title", {hand: s.hand_no})];
    if (s.reason !== "played") out.push(w("reason." + s.reason));
    out.push(w("result.points", {points: s.defender_points}));
    if (s.kitty.length) out.push(w(s.kitty_multiplier > 0 ? "result.kitty_won" : "result.kitty",
      {cards: `<span class="kitty">${s.kitty.map((c) => mini(c)).join(" ")}</span>`, points: s.kitty_points,
        mult: s.kitty_multiplier}, ["cards"]));
    if (s.penalties) out.push(w("result.penalty", {points: s.penalties}));
    if (s.winner !== null && s.side !== null) out.push(`<b>${outcome(s.winner, s.side, s.levels_up)}</b>`);
    if (s.knocked_to) out.push(w("result.knocked", {level: rank(s.knocked_to)}));
    if (s.levels_after) out.push(w("result.levels", {a: rank(s.levels_after[0]), b: rank(s.levels_after[1])}));
    if (s.next_dealer !== null) out.push(w("result.next_dealer", {who: seatLabel(s.next_dealer)}));
    return out;
  }

  // the end of the match as the group is told it: a board's score (a board has no winner at its
  // table), else the winners, the final levels and why, and where it belongs to a best of three, its count
  function resultLines(r) {
    const b = r.board;
    if (b) return [`<b>${w("board.table_done", {n: b.number === null ? "?" : b.number,
      side: sideText(b.declarers), points: b.points, score: (b.score >= 0 ? "+" : "") + b.score}, ["side"])}</b>`];
    if (r.winner === null) { // abandoned by its players' vote: where it stood, nobody won
      const p = r.stopped;
      return [`<b>${w("result.abandoned", {hand: p ? p.hand_no : "?"})}</b>`,
        w("result.levels", {a: rank(r.levels[0]), b: rank(r.levels[1])})].concat(p && p.defenders !== null ?
        [w("table.points_team", {team: team(p.defenders), points: p.points})] : []);
    }
    if (r.reason === "forfeit") return [`<b>${w("result.match_title")}</b>`,
      w("forfeit.done", {team: team(1 - r.winner), winner: team(r.winner)}),
      w("result.levels", {a: rank(r.levels[0]), b: rank(r.levels[1])})];
    const out = [`<b>${w("result.match_title")}</b>`, w("result.match_winner", {team: team(r.winner),
      who: T().seats.filter((f) => f.team === r.winner).map((f) => seatLabel(f.seat)).join(", ")}),
      w("result.levels", {a: rank(r.levels[0]), b: rank(r.levels[1])}),
      r.reason === "target" ? w("result.final_level", {team: team(r.winner), level: rank(r.levels[r.winner])}) :
        w("result.reason", {reason: w("reason." + r.reason)})];
    if (r.series) out.push(seriesLine(r));
    const g = r.league; // the league's line: the season it counted in, where the winners stand now
    if (g) out.push(w("result.league", {season: g.season, places: g.places.map((p) => w("result.league_place",
      {name: p.name, place: p.place, wins: p.wins, losses: p.losses})).join(" · ")}, ["places"]));
    return out;
  }

  function seriesLine(r) {
    const x = r.series;
    return x.over ? w("series.over", {team: team(r.winner), w0: x.wins[0], w1: x.wins[1]}) :
      w("series.next", {game: x.wins[0] + x.wins[1] + 1, team0: team(0), team1: team(1), w0: x.wins[0], w1: x.wins[1]});
  }

  function drawSummary() {
    const t = T(), s = t.summary, el = $("summary");
    el.hidden = !(s && summaryOpen === s.hand_no) && !t.result;
    // the end of a hand is a view of its own: it takes the table's place until it is put away
    $("table").hidden = !el.hidden;
    if (!el.hidden) { $("last").hidden = true; $("stake").hidden = true; }
    if (el.hidden) return;
    const r = t.result;
    // an abandoned match shows a hand's end only if it stopped there (not the hand before the one it stopped in)
    let lines = s && !(r && r.winner === null && t.phase !== "hand_over") ? summaryLines(s) : [];
    if (r) { // the match's lines after the hand's, a line the hand's end said already (the levels) once
      const more = resultLines(r);
      lines = lines.filter((x) => !more.includes(x)).concat(more);
    }
    const f = s && s.final_trick; // the hand's last trick, which decides the kitty's multiplier
    el.innerHTML = lines.map((x) => `<div>${x}</div>`).join("") + (f && !r ? `<p class="final">${w("web.last_trick")}: ` +
      f.plays.map((p) => `${esc(seatLabel(p.seat))} ` + p.cards.map((c) => mini(c, p.seat === f.winner ? " win" : "")).join("")).join(" · ") +
      "</p>" : "") +
      (t.result ? "" : `<button type="button" id="go-on" class="primary">${w("web.go_on")}</button>`);
    if (!t.result) $("go-on").onclick = () => { summaryDone = summaryOpen; summaryOpen = 0; draw(); };
    const x = r && r.series; // a best of three goes on: its next game, at once (it follows by itself too)
    if (x && !x.over && st.status === "finished") {
      el.insertAdjacentHTML("beforeend", `<button type="button" id="next-game" class="primary">` +
        `${w("web.next_game", {game: x.wins[0] + x.wins[1] + 1})}</button>`);
      $("next-game").onclick = follow;
    }
  }

  function drawHand() {
    const h = hand(), el = $("hand");
    el.hidden = !h;
    if (!h) { el.innerHTML = ""; return; }
    el.innerHTML = h.cards.map((c, i) => {
      const trump = h.suits[i] === "T", joker = c === "BJ" || c === "SJ";
      const gap = i > 0 && h.suits[i] !== h.suits[i - 1] ? " gap" : "";
      const face = joker ? `<span>${c === "BJ" ? "大" : "小"}</span><span>王</span>` :
        `<span class="s">${SUIT[c[1]]}</span><span>${c[0] === "T" ? "10" : c[0]}</span>`;
      return `<button type="button" class="card${isRed(c) ? " red" : ""}${trump ? " trump" : ""}${joker ? " joker" : ""}${gap}" ` +
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
    const nav = $("actions"), o = can(), h = hand(), cards = h ? h.cards : [], playing = T().phase === "playing";
    nav.innerHTML = "";
    mainAction = null;
    const picked = () => [...selected].sort((a, b) => a - b).map((i) => cards[i]);
    for (const cs of o.declare || []) nav.append(button(w("btn.declare", {cards: cardsText(cs)}), "primary", () => send("declare", cs), false, "declare", cs));
    for (const cs of o.chao || []) nav.append(button(w("btn.chao", {cards: cardsText(cs)}), "primary", () => send("chao", cs), false, "chao", cs));
    if (o.can_pass) nav.append(button(w("btn.pass"), "", () => send("pass"), false, "pass"));
    if (o.bury) {
      mainAction = {label: w("btn.bury", {n: selected.size}), ok: selected.size === 8, fn: () => send("bury", picked())};
      nav.append(button(mainAction.label, "primary", mainAction.fn, !mainAction.ok, "bury"));
    }
    if (playing && h) {
      const mine = !!o.play;
      mainAction = {label: w("btn.play"), ok: mine && selected.size > 0,
        fn: () => selected.size ? send("play", picked()) : say(w("web.select_first"), true)};
      nav.append(button(mainAction.label, "primary", mainAction.fn, !mainAction.ok, "play"));
      nav.append(button(w("web.hint"), "", () => send("hint"), !mine, "hint"));
    }
    if ((o.bury || playing) && cards.length) nav.append(button(w("btn.clear"), "", () => { selected.clear(); drawHand(); drawActions(); }, false, "clear"));
    if (o.revolt) nav.append(button(w("btn.revolt"), "", () => send("revolt"), false, "revolt"));
    if (tg && tg.MainButton) {
      const mb = tg.MainButton;
      if (mainAction && mainAction.ok) { mb.setText(mainAction.label); mb.show(); } else mb.hide();
    }
  }

  function tick() {
    const el = $("clock");
    let text = "";
    if (deadlineAt !== null && st && T().status !== "paused") {
      const left = Math.max(0, Math.ceil(deadlineAt - performance.now() / 1000)), o = can();
      const mine = o.play || o.bury || (o.chao || []).length || o.can_pass;
      text = (mine ? w("web.your_turn") + " " : "") + `${left}s`;
    }
    if (el.textContent !== text) el.textContent = text; // a phone redraws only when the clock changes
  }

  // ----- replays -----
  let rp = null;
  async function openReplay(handNo) {
    const body = {auth, match: matchId, hand: handNo || 0};
    if (rp && rp.match) body.replay = rp.match;
    const r = await fetch("/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await r.json();
    await load(lang());
    const el = $("replay");
    el.hidden = false;
    if (!r.ok) { el.textContent = w("web.no_hand"); return; }
    rp = {...data, at: 0, review: null};
    drawReplay();
  }

  // 复盘: the person's own review of the hand in the replay; flagged tricks are marked (⚑)
  async function openReview() {
    const body = {auth, match: matchId, replay: rp.match, hand: rp.hand, lang: lang()};
    $("rp-review").disabled = true;
    const r = await fetch("/review", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await r.json();
    rp.review = r.ok ? data : {text: w("web.no_review"), flagged: []};
    const first = flaggedTricks().find((i) => i >= rp.at);
    if (first !== undefined) rp.at = first;
    drawReplay();
  }

  function flaggedTricks() {
    return rp && rp.review ? [...new Set(rp.review.flagged.filter((f) => f.trick).map((f) => f.trick - 1))].sort((a, b) => a - b) : [];
  }

  function drawReplay() {
    const el = $("replay"), tr = rp.tricks[rp.at] || {plays: [], winner: null, points: 0};
    const name = (s) => rp.seats[s] || "—";
    const hands = rp.hands.map((h) => `<button type="button" data-hand="${h}" class="${h === rp.hand ? "primary" : ""}">${h}</button>`).join("");
    const trump = rp.trump === "NT" ? w("table.no_trump") : rp.trump ? SUIT[rp.trump] : "?";
    const flags = flaggedTricks(), here = rp.review ? rp.review.flagged.filter((f) => f.trick === rp.at + 1) : [];
    const nextFlag = flags.find((i) => i > rp.at), review = rp.review;
    el.innerHTML = `<div>${w("web.replay")} · ${w("web.hand", {hand: rp.hand})} · ${w("web.trump", {trump})} · ` +
      `${w("web.trick_of", {n: rp.at + 1, total: rp.tricks.length})}${here.length ? " ⚑" : ""}</div><div class="nav">${hands}</div>` +
      (review ? `<div class="nav ticks">${rp.tricks.map((_, i) => `<button type="button" data-at="${i}" class="${i === rp.at ? "primary" : ""}">` +
        `${i + 1}${flags.includes(i) ? "⚑" : ""}</button>`).join("")}</div>` : "") + `<div class="trick">` +
      tr.plays.map(([s, cs]) => `<div class="${s === tr.winner ? "win" : ""}">${esc(name(s))}<br>${cs.map((c) => mini(c)).join("")}</div>`).join("") +
      `</div><div>${tr.points ? "+" + w("web.points", {points: tr.points}) : ""}</div>` +
      (rp.at === rp.tricks.length - 1 && rp.result ? `<div>${w("web.kitty")}: ${(rp.result.kitty || []).map((c) => mini(c)).join("")} · ` +
        `${w("web.points", {points: rp.result.defender_points})}</div>` : "") +
      (here.length ? `<div class="review">${here.map((f) => esc(f.text)).join("<br>")}</div>` : "") +
      `<div class="nav"><button type="button" id="rp-prev">${w("web.prev")}</button><button type="button" id="rp-next">${w("web.next")}</button>` +
      (review ? `<button type="button" id="rp-flag">${w("web.next_flag")}</button>` : `<button type="button" id="rp-review">${w("web.review")}</button>`) +
      `<button type="button" id="rp-close">${w("web.close")}</button></div>` +
      (review ? `<pre class="review">${esc(review.text)}</pre>` : "");
    $("rp-prev").disabled = rp.at === 0;
    $("rp-next").disabled = rp.at >= rp.tricks.length - 1;
    $("rp-prev").onclick = () => { rp.at--; drawReplay(); };
    $("rp-next").onclick = () => { rp.at++; drawReplay(); };
    $("rp-close").onclick = () => { el.hidden = true; };
    if (review) {
      $("rp-flag").disabled = nextFlag === undefined;
      $("rp-flag").onclick = () => { rp.at = nextFlag; drawReplay(); }; // one tap to the next flagged decision
      el.querySelectorAll("[data-at]").forEach((b) => { b.onclick = () => { rp.at = parseInt(b.dataset.at, 10); drawReplay(); }; });
    } else $("rp-review").onclick = openReview;
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
    else if (ev.key === "h" && st && can().play) send("hint");
  });
  $("last").addEventListener("click", () => { recall = !recall; if (st) draw(); }); // the last trick, back on the table
  $("lang").addEventListener("click", () => {
    chosen = LANGS[(LANGS.indexOf(lang()) + 1) % LANGS.length];
    localStorage.setItem("tractor.lang", chosen);
    const redraw = () => { if (st) draw(); if (rp && !$("replay").hidden) drawReplay(); };
    if (words[chosen]) redraw(); else load(chosen).then(redraw);
  });
  $("replay-btn").addEventListener("click", () => openReplay(0));
  if (tg && tg.MainButton) tg.MainButton.onClick(() => { if (mainAction && mainAction.ok) mainAction.fn(); });
  setInterval(tick, 250);
  theme();
  LANGS.forEach((l) => load(l).catch(() => {})); // all three, so that a switch of language draws at once
  if (params.get("replay")) openReplay(parseInt(params.get("replay"), 10) || 0); else connect();
  window.tractor = {state: () => st, selected: () => [...selected], online: () => !!ws && ws.readyState === 1,
    lang: () => lang(), summary: () => !$("summary").hidden, timeline: () => timeline};
})();
