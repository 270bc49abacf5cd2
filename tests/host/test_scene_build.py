"""The scene built from a real match in each phase: what every door draws, and nothing a viewer may not know."""

from __future__ import annotations

from collections.abc import Callable

from bot.scene.build import choices, hand_scene, lobby_scene, table_scene
from bot.scene.text import seat_label, table_text
from bot.scene.types import Clock, SeatInfo, TableScene
from bot.scene.wire import scene_json
from engine import Match, Phase, preset
from engine.actions import Action, Bury, Declare
from tests.host.leaks import cards_in

SEATS = [SeatInfo("Ann"), SeatInfo("Bob", is_ai=True), SeatInfo("Cy"), SeatInfo("Di", away=True)]


def scene_of(m: Match, status: str = "active", clock: Clock | None = None) -> TableScene:
    return table_scene(m.public_view(), match_id=7, status="active" if status == "active" else "paused",
                       preset="classic", seats=SEATS, clock=clock, next_dealer=m.next_dealer())


def until(m: Match, done: Callable[[Match], bool], *, declare: bool = True) -> None:
    """Moves the match on with quick moves until `done` (declaring at the first chance when asked)."""
    for _ in range(2000):
        if done(m):
            return
        action: Action | None = m.system_action()
        if declare and m.phase == Phase.DEALING and m.public_view()["declaration"] is None:
            for s in range(4):
                bid = next((a for a in m.legal_actions(s) if isinstance(a, Declare)), None)
                if bid is not None:
                    action = bid
                    break
        if action is None or m.to_act():
            s = m.to_act()[0]
            action = m.auto_action(s, rng_seed=m.version)
        assert action is not None
        m.apply(action)
    raise AssertionError("the match never got there")


def test_lobby() -> None:
    sc = lobby_scene(match_id=3, preset="classic", seats=[SeatInfo("Ann"), None, None, None], creator="Ann")
    assert sc.status == "lobby" and sc.phase is None and sc.lobby is not None and sc.lobby.creator == "Ann"
    assert [f.taken for f in sc.seats] == [True, False, False, False]
    assert [f.team for f in sc.seats] == [0, 1, 0, 1]


def test_dealing_with_a_declaration_that_still_leads() -> None:
    m = Match.new(preset("classic"), 5)
    until(m, lambda x: x.public_view()["declaration"] is not None and x.phase == Phase.DEALING)
    sc = scene_of(m)
    assert sc.phase == Phase.DEALING and sc.trump.suit is None
    assert sc.trump.declared is not None and not sc.trump.final
    d = m.public_view()["declaration"]
    assert d is not None and sc.trump.declared.seat == d["seat"] and sc.trump.declared.cards == tuple(d["cards"])
    assert [f.cards for f in sc.seats] == list(m.public_view()["hand_counts"])
    assert sc.summary is None and sc.trick == () and sc.last_trick is None
    for s in range(4):
        v = m.view(s)
        h = hand_scene(v, choices(m, s, v, bury_seed=1))
        assert h.cards == tuple(v["hand"]) and len(h.suits) == len(h.cards)
        assert all(set(bid) <= set(h.cards) for bid in h.choices.declare)


def test_burying_shows_the_kitty_to_the_burier_only() -> None:
    m = Match.new(preset("classic"), 5)
    until(m, lambda x: x.phase == Phase.BURYING)
    sc = scene_of(m, clock=Clock("bury", 30.0))
    burier = m.to_act()[0]
    assert sc.turn.seats == (burier,) and sc.turn.clock == Clock("bury", 30.0)
    assert sc.declarers == burier % 2 and sc.defenders == 1 - burier % 2
    for s in range(4):
        v = m.view(s)
        h = hand_scene(v, choices(m, s, v, bury_seed=m.version))
        if s == burier:
            assert h.kitty is not None and len(h.kitty) == 8 and h.choices.bury
            assert len(h.choices.bury_pick) == 8 and set(h.choices.bury_pick) <= set(h.cards)
            pick = m.auto_action(s, rng_seed=m.version)
            assert isinstance(pick, Bury) and h.choices.bury_pick == tuple(pick.cards)
        else:
            assert h.kitty is None and not h.choices.bury and h.choices.bury_pick == ()


def test_playing_the_trick_at_each_seat_the_last_trick_and_points_by_team() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.PLAYING and int(x.public_view()["tricks_played"]) >= 3
          and len(x.public_view()["trick"]) == 2)
    pub = m.public_view()
    sc = scene_of(m, clock=Clock("turn", 12.5))
    assert [(p.seat, list(p.cards)) for p in sc.trick] == [(s, list(c)) for s, c in pub["trick"]]
    assert sc.turn.seats == (pub["turn"],) and sc.turn.clock is not None
    assert sc.trump.final and sc.trump.suit == pub["trump"]
    last = sc.last_trick
    assert last is not None and last.winner == pub["last_trick_winner"]
    assert last.points == pub["tricks"][-1]["points"]
    declarers = pub["declarers"]
    assert declarers is not None
    assert last.counts == (last.points > 0 and last.winner not in declarers)
    by_team = [0, 0]
    for t in pub["tricks"]:
        by_team[t["winner"] % 2] += t["points"]
    assert sc.points == tuple(by_team)
    assert sc.points[1 - declarers[0] % 2] == pub["defender_points"]
    turn = pub["turn"]
    assert turn is not None
    v = m.view(turn)
    h = hand_scene(v, choices(m, turn, v, bury_seed=0), picked=[0, 1, 99])
    assert h.choices.play and h.picked == frozenset({0, 1})
    other = (turn + 1) % 4
    ov = m.view(other)
    assert not hand_scene(ov, choices(m, other, ov, bury_seed=0)).choices.play
    assert sc.summary is None


def test_the_winner_of_the_trick_so_far_is_marked_as_it_is_played() -> None:
    """Each play of a whole hand: the seat whose play wins the trick so far, which is the leader
    alone at first, and the seat that takes the trick unless the last play beats it."""
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.PLAYING)
    overtaken = 0
    while m.phase == Phase.PLAYING:
        sc = scene_of(m)
        plays = m.public_view()["trick"]
        if not plays:
            assert sc.winning is None
        elif len(plays) == 1:
            assert sc.winning == plays[0][0]
        overtaken += sc.winning is not None and sc.winning != plays[0][0]
        said = [x for x in table_text(sc, "en").splitlines() if x.startswith("Winning so far: ")]
        assert said == ([f"Winning so far: {seat_label(sc.seats[sc.winning], 'en')}"]  # the chats' and terminal's line
                        if len(plays) > 1 and sc.winning is not None else [])
        assert scene_json(sc)["winning"] == sc.winning  # type: ignore[index,call-overload]
        seat = m.to_act()[0]
        action = m.auto_action(seat, rng_seed=m.version)
        assert action is not None
        m.apply(action)
        if len(plays) == 3:  # that play completed the trick: taken by the seat winning it, or by the last play
            assert m.public_view()["last_trick_winner"] in (sc.winning, seat)
    assert overtaken > 0  # not only the leader: a trick taken over mid-way is marked so
    assert scene_of(m).winning is None


def test_the_stake_says_what_the_defenders_points_would_mean_now_and_the_next_step() -> None:
    m = Match.new(preset("classic"), 11)
    assert scene_of(m).stake is None  # nothing at stake before cards are played
    until(m, lambda x: x.phase == Phase.PLAYING and int(x.public_view()["defender_points"]) > 0)
    pub = m.public_view()
    points, declarers = int(pub["defender_points"]), pub["declarers"]
    assert declarers is not None
    dteam = declarers[0] % 2
    # the classic table (document 000): 0 -> +5, 5-15 -> +3, 20-75 -> +1 for the declarers; from 80 the
    # defenders take the deal, +1 from 120, +2 from 160, +3 from 180, +4 from 190, +5 at 200
    steps = [(0, "declarers", 5), (5, "declarers", 3), (20, "declarers", 1), (80, "defenders", 0),
             (120, "defenders", 1), (160, "defenders", 2), (180, "defenders", 3), (190, "defenders", 4),
             (200, "defenders", 5)]
    i = max(j for j, (low, _, _) in enumerate(steps) if points >= low)
    side, up = steps[i][1], steps[i][2]
    stake = scene_of(m).stake
    assert stake is not None, points
    assert (stake.side, stake.levels_up) == (side, up)
    assert stake.winner == (dteam if side == "declarers" else 1 - dteam)
    assert stake.next_at == (steps[i + 1][0] if i + 1 < len(steps) else None)
    board = table_scene(pub, match_id=7, status="active", preset="classic", seats=SEATS, board=True)
    assert board.stake is None  # a duplicate board is scored by its points, no levels at stake


def test_paused_waits_for_nobody() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.PLAYING)
    sc = scene_of(m, status="paused", clock=Clock("turn", 5))
    assert sc.paused and sc.turn.seats == () and sc.turn.clock is None


def test_hand_over_summary_with_the_next_dealer() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.HAND_OVER)
    pub = m.public_view()
    res = pub["last_result"]
    assert res is not None
    sc = scene_of(m)
    s = sc.summary
    assert s is not None and sc.hand_over and sc.turn.seats == ()
    assert s.hand_no == 1 and s.defender_points == res["defender_points"]
    assert s.kitty == tuple(res["kitty"]) and len(s.kitty) == 8
    assert s.kitty_multiplier == res["kitty_multiplier"] and s.kitty_points == res["kitty_points"]
    assert s.defenders == 1 - res["declarer_team"]
    assert s.winner == (res["declarer_team"] if res.get("winner") == "declarers" else 1 - res["declarer_team"])
    assert s.levels_up == res.get("levels", 0) and s.levels_after == tuple(res["levels_after"])
    assert s.next_dealer is not None and s.next_dealer == m.next_dealer()
    assert sc.last_trick is not None  # the final trick stays on the table
    nxt = m.next_dealer()
    m.apply(m.system_action())  # type: ignore[arg-type]
    assert m.public_view()["dealer"] == nxt
    assert s.final_trick == sc.last_trick  # the hand's last trick goes with its end
    after = table_scene(m.public_view(), match_id=7, status="active", preset="classic", seats=SEATS,
                        final_trick=s.final_trick).summary
    assert after is not None and after.next_dealer == nxt and not scene_of(m).hand_over
    assert after.final_trick == s.final_trick and scene_of(m).last_trick is None


def test_match_over_result() -> None:
    m = Match.new(preset("classic", target="3"), 2)
    until(m, lambda x: x.phase == Phase.MATCH_OVER or x.result is not None)
    sc = scene_of(m)
    res = m.public_view()["result"]
    assert res is not None and sc.result is not None
    assert sc.result.winner == res["winner_team"] and sc.result.levels == tuple(res["levels"])
    assert sc.turn.seats == () and sc.summary is not None and sc.summary.next_dealer is None


def test_no_hand_in_the_public_scene_and_only_its_own_in_a_seats() -> None:
    m = Match.new(preset("classic"), 11)
    for phase in (Phase.DEALING, Phase.BURYING, Phase.PLAYING, Phase.HAND_OVER):
        until(m, lambda x, p=phase: x.phase == p and (p != Phase.PLAYING or len(x.public_view()["trick"]) == 2))
        public = cards_in(scene_json(scene_of(m)))
        assert not public - cards_in(m.public_view()), phase
        for s in range(4):
            v = m.view(s)
            h = hand_scene(v, choices(m, s, v, bury_seed=m.version))
            assert set(cards_in(scene_json(h))) <= set(cards_in(v)), (phase, s)  # its own cards only
