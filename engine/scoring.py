"""Settling a showdown: every pair, every row, every payment with its reason.

The order of play follows the documents: naturals settle first against everyone; a
surrendering player pays each opponent the surrender price; the other players compare
row by row (a fouled hand loses every row to every opponent whose hand is not fouled);
then whole-table schemes (pool, single winner) and side bets; chip stacks last limit what
changes hands, settled dealer first. Every payment is zero-sum between two players, so a
table's totals always sum to zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .cards import Card, CardError, card_names, ensure_distinct
from .hands import Hand, tiebreak_ranks
from .naturals import Natural, best_natural, compare_naturals
from .rules import Rules
from .setting import ROWS, Setting


class TableError(ValueError):
    """A table that cannot be settled; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class Player:
    """One seat at the table, in clockwise order from the dealer."""

    name: str
    setting: Setting | None = None
    cards: tuple[Card, ...] = ()
    natural: bool = False
    surrender: bool = False
    bank: bool = False
    stack: float | None = None
    exchange: bool = False

    @property
    def all_cards(self) -> tuple[Card, ...]:
        return self.setting.cards if self.setting else self.cards


@dataclass
class Payment:
    to: str
    payer: str
    units: float
    reason: str
    kind: str  # row, royalty, overall, sweep, scoop, natural, surrender, exchange, aces, ...

    def to_dict(self) -> dict[str, object]:
        return {"to": self.to, "units": _number(self.units), "reason": self.reason}


@dataclass
class PairResult:
    a: str
    b: str
    rows: dict[str, str | None] = field(
        default_factory=lambda: dict.fromkeys(r.value for r in ROWS))
    payments: list[Payment] = field(default_factory=list)

    @property
    def net(self) -> float:
        """What ``a`` wins from ``b`` (negative when ``a`` pays)."""
        return sum(p.units if p.to == self.a else -p.units for p in self.payments)

    def pay(self, to: str, units: float, reason: str, kind: str) -> None:
        if units:
            payer = self.b if to == self.a else self.a
            self.payments.append(Payment(to, payer, units, reason, kind))

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "rows": dict(self.rows),
            "payments": [p.to_dict() for p in self.payments],
            "net": _number(self.net),
        }


@dataclass
class Settlement:
    rules: Rules
    players: list[Player]
    pairs: list[PairResult]
    fouls: list[str]
    naturals: dict[str, Natural]
    surrendered: list[str]
    pool: dict[str, object] | None = None

    @property
    def totals(self) -> dict[str, float]:
        totals = {p.name: 0.0 for p in self.players}
        for pair in self.pairs:
            for payment in pair.payments:
                totals[payment.to] += payment.units
                totals[payment.payer] -= payment.units
        return totals

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "rules": self.rules.name,
            "totals": {name: _number(units) for name, units in self.totals.items()},
            "pairs": [pair.to_dict() for pair in self.pairs],
            "fouls": list(self.fouls),
            "naturals": {name: n.to_dict() for name, n in self.naturals.items()},
            "surrendered": list(self.surrendered),
            "players": {p.name: _player_rows(p) for p in self.players},
        }
        if self.pool is not None:
            data["pool"] = self.pool
        return data


def _player_rows(player: Player) -> dict[str, object] | None:
    if player.setting is None:
        return None
    return {
        row.value: {
            "cards": card_names(hand.cards),
            "category": hand.category_name,
            "description": hand.description,
        }
        for row, hand in player.setting.hands()
    }


def _number(value: float) -> float | int:
    rounded = round(value, 6)
    return int(rounded) if float(rounded).is_integer() else rounded


# --- validation ----------------------------------------------------------------------

def _check_table(players: Sequence[Player], rules: Rules) -> None:
    if not 2 <= len(players) <= 4:
        raise TableError(f"a table has 2 to 4 players, got {len(players)}")
    names = [p.name for p in players]
    for name in names:
        if not name.strip():
            raise TableError("every player needs a name")
        if names.count(name) > 1:
            raise TableError(f'two players are called "{name}": give each a different name')
    banks = [p.name for p in players if p.bank]
    if len(banks) > 1:
        raise TableError(f"only one player can be the bank, got {', '.join(banks)}")
    if banks and (rules.pool or rules.single_winner):
        scheme = "pool" if rules.pool else "single winner"
        raise TableError(f"the {scheme} is played without a bank: unmark {banks[0]} as bank")
    if rules.bank_required and not banks:
        raise TableError(f'rules "{rules.name}" play against a bank: mark one player "bank"')
    seen: dict[Card, str] = {}
    for player in players:
        cards = player.all_cards
        if len(cards) != 13:
            raise TableError(f"{player.name} has {len(cards)} cards, needs 13")
        try:
            ensure_distinct(cards)
        except CardError as error:
            raise TableError(f"{player.name}: {error}") from None
        for card in cards:
            if card in seen:
                raise TableError(f"{card} is used twice at the table: {seen[card]} and "
                                 f"{player.name}")
            seen[card] = player.name
        if player.setting is None and not (player.natural or player.surrender):
            raise TableError(f"{player.name} gives 13 cards but no rows: set front, middle and "
                             "back, or declare a natural or surrender")
        if player.surrender and not rules.surrender_allowed:
            raise TableError(f'{player.name} surrenders, but rules "{rules.name}" do not allow '
                             "surrender")
        if player.surrender and player.natural:
            raise TableError(f"{player.name} both declares a natural and surrenders: pick one")
        if player.exchange and not rules.exchange_payment:
            raise TableError(f'{player.name} exchanges, but rules "{rules.name}" have no '
                             "exchange (set exchange_payment)")
        if player.stack is not None and (not math.isfinite(player.stack) or player.stack < 0):
            raise TableError(f"{player.name}'s stack must be a number >= 0")


def _declared_naturals(players: Sequence[Player], rules: Rules) -> dict[str, Natural]:
    naturals: dict[str, Natural] = {}
    for player in players:
        if not player.natural:
            continue
        if not rules.naturals:
            raise TableError(f'{player.name} declares a natural, but rules "{rules.name}" '
                             "play none")
        found = best_natural(player.all_cards, rules)
        if found is None:
            playable = ", ".join(k.replace("_", " ") for k in rules.naturals)
            raise TableError(f"{player.name} declares a natural, but the 13 cards make none "
                             f'under rules "{rules.name}" ({playable})')
        naturals[player.name] = found
    return naturals


# --- the pair showdown -------------------------------------------------------------

def _row_royalty(rules: Rules, row: str, hand: Hand) -> float:
    return rules.royalty(row, hand.category, tiebreak_ranks(hand.value)[0])


def _royalty_reason(row: str, hand: Hand) -> str:
    return f"{row} royalty: {hand.description}"


def _surrender_units(rules: Rules) -> float:
    if rules.surrender == "two-rows":
        # Pays as if it lost two rows of three (pagat): 1 unit, 2 with the overall point.
        if rules.row_scheme == "two-of-three":
            return rules.two_of_three_units
        return rules.row_points + rules.overall_point
    return float(rules.surrender)


class _Table:
    """One settlement in progress; methods fill ``pairs``."""

    def __init__(self, players: Sequence[Player], rules: Rules) -> None:
        _check_table(players, rules)
        self.rules = rules
        self.players = list(players)
        self.by_name = {p.name: p for p in players}
        self.naturals = _declared_naturals(players, rules)
        self.fouls = [p.name for p in players if p.name not in self.naturals
                      and not p.surrender and p.setting is not None and not p.setting.is_legal]
        self.bank = next((p.name for p in players if p.bank), None)
        self.pairs = [PairResult(a.name, b.name) for a, b in self._pairings()]

    def _pairings(self) -> Iterable[tuple[Player, Player]]:
        for i, a in enumerate(self.players):
            for b in self.players[i + 1:]:
                if self.bank is None or self.bank in (a.name, b.name):
                    yield a, b

    def compared(self, name: str) -> bool:
        """Plays its rows (not a natural, not surrendered)."""
        return name not in self.naturals and not self.by_name[name].surrender

    def row_opponents(self, name: str) -> list[str]:
        return [
            pair.b if pair.a == name else pair.a
            for pair in self.pairs
            if name in (pair.a, pair.b) and self.compared(pair.a) and self.compared(pair.b)
        ]

    # Each phase adds payments to every pair.
    def settle_naturals(self) -> None:
        rules = self.rules
        for pair in self.pairs:
            na, nb = self.naturals.get(pair.a), self.naturals.get(pair.b)
            if na and nb:
                outcome = compare_naturals(na, nb, rules)
                if outcome == 0:
                    continue
                winner = pair.a if outcome > 0 else pair.b
                win_nat, lose_nat = (na, nb) if outcome > 0 else (nb, na)
                units = (abs(na.points - nb.points) if rules.naturals_versus == "difference"
                         else win_nat.points)
                pair.pay(winner, units, f"natural: {win_nat.name} beats {lose_nat.name}",
                         "natural")
            elif na or nb:
                winner, natural = (pair.a, na) if na else (pair.b, nb)
                assert natural is not None
                pair.pay(winner, natural.points, f"natural: {natural.name}", "natural")

    def settle_surrenders(self) -> None:
        units = _surrender_units(self.rules)
        for pair in self.pairs:
            if pair.a in self.naturals or pair.b in self.naturals:
                continue
            sa, sb = self.by_name[pair.a].surrender, self.by_name[pair.b].surrender
            if sa != sb:
                winner, quitter = (pair.b, pair.a) if sa else (pair.a, pair.b)
                pair.pay(winner, units, f"surrender: {quitter} surrenders", "surrender")

    def settle_rows(self) -> None:
        if self.rules.pool or self.rules.single_winner:
            return
        results = {id(pair): self._compare_rows(pair) for pair in self.pairs
                   if self.compared(pair.a) and self.compared(pair.b)}
        scoopers = self._scoopers(results)
        for pair in self.pairs:
            if id(pair) in results:
                self._pay_rows(pair, results[id(pair)], scoopers)

    def _compare_rows(self, pair: PairResult) -> dict[str, str | None]:
        """Row winner's name, or None for a tie; all None when both hands are fouled."""
        rows: dict[str, str | None] = {}
        foul_a, foul_b = pair.a in self.fouls, pair.b in self.fouls
        sa, sb = self.by_name[pair.a].setting, self.by_name[pair.b].setting
        assert sa is not None and sb is not None
        for row in ROWS:
            if foul_a or foul_b:
                rows[row.value] = None if foul_a and foul_b else (pair.b if foul_a else pair.a)
                continue
            va, vb = sa.row(row).value, sb.row(row).value
            if va == vb:
                tie_to_bank = self.rules.bank_wins_ties and self.bank in (pair.a, pair.b)
                rows[row.value] = self.bank if tie_to_bank else None
            else:
                rows[row.value] = pair.a if va > vb else pair.b
        pair.rows = {row: (winner if winner else ("tie" if not (foul_a and foul_b) else None))
                     for row, winner in rows.items()}
        return rows

    def _scoopers(self, results: dict[int, dict[str, str | None]]) -> set[str]:
        """Players who won all three rows against every opponent they compared with."""
        scoopers = set()
        for player in self.players:
            opponents = self.row_opponents(player.name)
            if len(opponents) < self.rules.all_scooped_min_opponents:
                continue
            mine = [results[id(pair)] for pair in self.pairs
                    if id(pair) in results and player.name in (pair.a, pair.b)]
            if mine and all(all(w == player.name for w in rows.values()) for rows in mine):
                scoopers.add(player.name)
        return scoopers

    def _pay_rows(self, pair: PairResult, rows: dict[str, str | None], scoopers: set[str]) -> None:
        rules = self.rules
        settings = {name: self.by_name[name].setting for name in (pair.a, pair.b)}
        fouled = {name for name in (pair.a, pair.b) if name in self.fouls}
        if len(fouled) == 2:
            return
        base: dict[str, float] = {pair.a: 0.0, pair.b: 0.0}  # units multiplied by a scoop
        bonus: dict[str, float] = {pair.a: 0.0, pair.b: 0.0}  # royalties for the overall
        wins = {name: sum(w == name for w in rows.values()) for name in (pair.a, pair.b)}
        loser_of = {pair.a: pair.b, pair.b: pair.a}

        for row in ROWS:
            winner = rows[row.value]
            if winner is None:
                continue
            hand = settings[winner].row(row)  # type: ignore[union-attr]
            loser_hand = settings[loser_of[winner]].row(row)  # type: ignore[union-attr]
            versus = ("opponent fouled" if fouled
                      else f"{hand.description} beats {loser_hand.description}")
            if hand.value == loser_hand.value and not fouled:
                versus = f"{hand.description} ties, the bank wins ties"
            royalty = _row_royalty(rules, row.value, hand)
            if rules.row_scheme == "per-row":
                units = rules.row_points
                reason = f"{row.value}: {winner} wins, {versus}"
                if rules.royalty_mode == "winner-instead" and royalty:
                    units = royalty
                    reason += f" ({_number(royalty)} instead of {_number(rules.row_points)})"
                pair.pay(winner, units, reason, "row")
                base[winner] += units
            if rules.royalty_mode == "winner-added" and royalty:
                pair.pay(winner, royalty, _royalty_reason(row.value, hand), "royalty")
                bonus[winner] += royalty

        if rules.royalty_mode == "always":
            for name in (pair.a, pair.b):
                if name in fouled:
                    continue
                for row, hand in settings[name].hands():  # type: ignore[union-attr]
                    royalty = _row_royalty(rules, row.value, hand)
                    if royalty:
                        pair.pay(name, royalty, _royalty_reason(row.value, hand) +
                                 " (paid win or lose)", "royalty")
                        bonus[name] += royalty

        if rules.row_scheme == "two-of-three":
            for name in (pair.a, pair.b):
                if wins[name] == 3:
                    every = name in scoopers
                    units = rules.three_of_three_all_units if every else rules.three_of_three_units
                    what = "all three rows against every opponent" if every else "all three rows"
                    pair.pay(name, units, f"{name} wins {what}", "row")
                    base[name] += units
                elif wins[name] == 2:
                    pair.pay(name, rules.two_of_three_units, f"{name} wins two of three rows",
                             "row")
                    base[name] += rules.two_of_three_units

        if rules.overall_point:
            if rules.overall_counts_royalties:
                score = {n: base[n] + bonus[n] for n in base}
            else:
                score = {n: float(wins[n]) for n in wins}
            if score[pair.a] != score[pair.b]:
                leader = pair.a if score[pair.a] > score[pair.b] else pair.b
                pair.pay(leader, rules.overall_point, f"overall point: {leader} wins on balance",
                         "overall")
                base[leader] += rules.overall_point

        for name in (pair.a, pair.b):
            if wins[name] != 3:
                continue
            if rules.sweep_bonus:
                pair.pay(name, rules.sweep_bonus, f"sweep: {name} wins all three rows", "sweep")
                base[name] += rules.sweep_bonus
            every = name in scoopers
            multiplier = rules.all_scooped_multiplier if every else rules.scoop_multiplier
            if multiplier > 1:
                what = ("home run: every opponent scooped" if every
                        else f"scoop: {name} wins all three rows")
                pair.pay(name, base[name] * (multiplier - 1),
                         f"{what}, base points x{_number(multiplier)}", "scoop")

    def settle_pool(self) -> dict[str, object] | None:
        """Each player stakes the pool; the best front, middle and back take a third each."""
        rules = self.rules
        if not rules.pool:
            return None
        names = [p.name for p in self.players]
        eligible = [n for n in names if self.compared(n) and n not in self.fouls]
        share = rules.pool_stake * len(names) / 3
        collected = dict.fromkeys(names, 0.0)
        row_winners: dict[str, list[str]] = {}
        for row in ROWS:
            if eligible:
                best = max(self.by_name[n].setting.row(row).value  # type: ignore[union-attr]
                           for n in eligible)
                winners = [n for n in eligible
                           if self.by_name[n].setting.row(row).value == best]  # type: ignore[union-attr]
            else:
                winners = names  # nobody can win the row: the stakes go back
            row_winners[row.value] = winners
            for n in winners:
                collected[n] += share / len(winners)
        # One player alone best in all three rows takes the whole pool and a bit more.
        firsts = [winners for winners in row_winners.values() if len(winners) == 1]
        sweeper = firsts[0][0] if len(firsts) == 3 and len({w[0] for w in firsts}) == 1 else None
        # Net each player's pool result as payments between pairs, proportionally, so the
        # settlement stays a list of two-player payments that sum to zero.
        net = {n: collected[n] - rules.pool_stake for n in names}
        if sweeper is not None:
            for n in names:
                if n != sweeper:
                    net[n] -= rules.pool_sweep_extra
                    net[sweeper] += rules.pool_sweep_extra
        _net_to_pairs(self, net, "pool")
        return {
            "stake": _number(rules.pool_stake),
            "rows": row_winners,
            "sweep": sweeper,
            "net": {n: _number(v) for n, v in net.items()},
        }

    def settle_single_winner(self) -> None:
        """Philippine Pusoy: whoever beats every other player on two rows collects 1 each."""
        if not self.rules.single_winner:
            return
        contenders = [p.name for p in self.players if self.compared(p.name)]
        for pair in self.pairs:
            if pair.a in contenders and pair.b in contenders:
                self._compare_rows(pair)
        for name in contenders:
            others = [o for o in contenders if o != name]
            if others and all(self._rows_won(name, other) >= 2 for other in others):
                for pair in self.pairs:
                    if name in (pair.a, pair.b) and self.compared(pair.a) and self.compared(pair.b):
                        pair.pay(name, self.rules.row_points,
                                 f"single winner: {name} beats every player on two rows or more",
                                 "single")

    def _rows_won(self, name: str, other: str) -> int:
        pair = next(p for p in self.pairs if {p.a, p.b} == {name, other})
        return sum(w == name for w in pair.rows.values())

    def settle_side_bets(self) -> None:
        for pair in self.pairs:
            a, b = self.by_name[pair.a], self.by_name[pair.b]
            if self.rules.aces_side_bet:
                aces_a = sum(c.rank == 14 for c in a.all_cards)
                aces_b = sum(c.rank == 14 for c in b.all_cards)
                value = self.rules.aces_values
                diff = value[aces_a] - value[aces_b]
                if diff:
                    more = pair.a if diff > 0 else pair.b
                    pair.pay(more, abs(diff), f"aces side bet: {aces_a} aces against {aces_b}",
                             "aces")
            for player in (a, b):
                if player.exchange:
                    other = pair.b if player.name == pair.a else pair.a
                    pair.pay(other, self.rules.exchange_payment,
                             f"exchange: {player.name} exchanged cards", "exchange")

    def apply_stacks(self) -> None:
        """Nobody wins or loses more than the chips in front of them (Hawaiian Gardens).

        Pairs settle in seat order from the dealer (A-B, A-C, A-D, B-C, ...), naturals
        first, then everything else; each chip a player wins or loses uses up one chip
        of their stack's capacity, so a player with 8 chips who wins 6 from B can lose
        only 2 to C.
        """
        if all(p.stack is None for p in self.players):
            return
        room = {p.name: (math.inf if p.stack is None else p.stack) for p in self.players}
        for phase in ("natural", "other"):
            for pair in self.pairs:
                owed = sum((p.units if p.to == pair.a else -p.units) for p in pair.payments
                           if (p.kind == "natural") == (phase == "natural"))
                if not owed:
                    continue
                paid = min(abs(owed), room[pair.a], room[pair.b])
                room[pair.a] -= paid
                room[pair.b] -= paid
                if paid < abs(owed):
                    winner = pair.a if owed > 0 else pair.b
                    short = pair.b if winner == pair.a else pair.a
                    limited = pair.a if room[pair.a] == 0 else pair.b
                    pair.payments.append(Payment(
                        short, winner, abs(owed) - paid,
                        f"stack limit: {limited}'s chips cover {_number(paid)} of "
                        f"{_number(abs(owed))}", "stack"))


def _net_to_pairs(table: _Table, net: dict[str, float], kind: str) -> None:
    """Turn per-player results that sum to zero into pair payments (losers pay winners
    in proportion), recorded on the table's pairs."""
    winners = {n: v for n, v in net.items() if v > 0}
    losers = {n: -v for n, v in net.items() if v < 0}
    total = sum(winners.values())
    for loser, owes in losers.items():
        for winner, gets in winners.items():
            units = owes * gets / total
            pair = next((p for p in table.pairs if {p.a, p.b} == {loser, winner}), None)
            if pair is None:
                pair = PairResult(*sorted((loser, winner), key=list(net).index))
                table.pairs.append(pair)
            pair.pay(winner, units, f"{kind}: {winner} collects from {loser}", kind)


def settle(players: Sequence[Player], rules: Rules) -> Settlement:
    """Settle one deal. Raises :class:`TableError` for a table that cannot be played."""
    table = _Table(players, rules)
    table.settle_naturals()
    table.settle_surrenders()
    table.settle_rows()
    pool = table.settle_pool()
    table.settle_single_winner()
    table.settle_side_bets()
    table.apply_stacks()
    return Settlement(
        rules=rules,
        players=table.players,
        pairs=table.pairs,
        fouls=table.fouls,
        naturals=table.naturals,
        surrendered=[p.name for p in players if p.surrender],
        pool=pool,
    )

