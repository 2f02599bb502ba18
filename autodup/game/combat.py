"""Combat: each fight's odds and outcome, damage, the luck terms of fights and pairings, elimination and ranking."""

from __future__ import annotations

import numpy as np

from ..engine.rng import EVENT_GHOST_INDEX
from .rounds import ghost_of, streak_gold_of
from .rules import EVENTS_BY_SEAT, STREAM_COMBAT_KEY, STREAM_TIEBREAK_KEY, game_inline, game_internal
from .shop import clear_shop, copies_of_star, event_uniform, move_copies
from .stats import (
    LUCK_COIN,
    LUCK_COIN_DUEL,
    LUCK_COIN_GOLD,
    LUCK_COIN_HP,
    LUCK_COIN_ONLOOKER,
    LUCK_COIN_VALUE,
    LUCK_MATCHMAKING,
    LUCK_MATCHMAKING_HP,
    LUCK_MATCHMAKING_VALUE,
    LUCK_TIEBREAK,
    VALUE_SCALE,
)
from .units import board_power, record_final_board, remove_unit

__all__ = ["play_fights", "play_fight", "prepare_fights", "eliminate", "rank_seats"]

# The widest span of the round's strengths for which a pair's odds are a product of two seats' factors
# (prepare_fights): each factor then stays within exp(+-300), far from overflow and from subnormals.
_FACTORED_SPREAD = 600.0


@game_inline
def _damage(rules, round_index, power_winner, power_loser, units_winner):
    """HP a fight's loser loses: the round's damage plus some for each of the winner's surviving units."""
    survivors = 0
    if units_winner > 0:
        survivors = max(1, int(np.ceil(units_winner * max(0.0, power_winner - power_loser) / max(power_winner, 1e-12))))
    return rules.round_damage[round_index] + rules.damage_per_surviving_unit * survivors


@game_inline
def _fight_odds(rules, table, a, b, round_index):
    """``(P(a beats b), HP a loses if it loses, HP b loses if it loses)`` on this round's boards (``fight_*``;
    the odds ``fight_odds``, which :func:`prepare_fights` computed for every pair of alive seats)."""
    power_a, power_b = table.fight_power[a], table.fight_power[b]
    p_a = 1.0 / (1.0 + table.fight_odds[a, b])
    return (p_a, _damage(rules, round_index, power_b, power_a, table.fight_units[b]),
            _damage(rules, round_index, power_a, power_b, table.fight_units[a]))


@game_inline
def _hp_factor(table, difference, scale):
    """exp(-``difference`` / ``scale``), the value's HP factor, from the table's memo ``value_terms`` (float64
    (2 H + 1,), an entry per whole difference -H..H) for a whole difference within it, computed and kept on
    first use: a game asks for the same few hundred HP differences thousands of times. An entry 0 is one not
    computed yet (no factor within the memo is 0: |difference / scale| is at most 1 / VALUE_SCALE); outside the
    memo the factor is computed afresh."""
    terms = table.value_terms
    half = (terms.shape[0] - 1) // 2
    if -half <= difference <= half and int(difference) == difference:
        index = int(difference) + half
        term = terms[index]
        if term == 0.0:
            term = np.exp(-difference / scale)
            terms[index] = term
        return term
    return np.exp(-difference / scale)


@game_inline
def _outlasts(rules, table, seat, seat_loss, other, other_loss):
    """P(seat outlasts other) in the value (:func:`_value`) once the seat has lost ``seat_loss`` HP and the other
    ``other_loss`` since the round's fights started (``fight_hp``): a logistic in their HP difference (scale
    ``VALUE_SCALE`` x starting HP) plus the seat's log-odds of beating the other in one fight on this round's
    boards; 0 if the seat's HP is then 0 or below, else 1 if the other's is.

    The logistic's exponential is the pair's factor at the round's HP (``outlasts_factor``, kept by
    :func:`prepare_fights`) times the HP factor of the losses (:func:`_hp_factor`, a memo of whole
    differences): an exponential of a sum is the product of the exponentials."""
    if table.fight_hp[seat] - seat_loss <= 0:
        return 0.0
    if table.fight_hp[other] - other_loss <= 0:
        return 1.0
    return 1.0 / (1.0 + table.outlasts_factor[seat, other]
                  * _hp_factor(table, other_loss - seat_loss, VALUE_SCALE * rules.starting_hp))


@game_inline
def _value(rules, table, seat, seat_loss, terms, keep):
    """The seat's value once it has lost ``seat_loss`` HP since the round's fights started: a state value fixed in
    advance, its expected number of alive seats outlasted (:func:`_outlasts`), so players - value estimates its
    placement. It weighs board power as well as HP: a stronger board outlasts an equal HP. The other seats have
    their HP at the start of the round's fights. With ``keep``, each term against another seat is written into
    ``terms`` (float64 (players,)). The losses' HP factor is the same in every term: looked up once."""
    if table.fight_hp[seat] - seat_loss <= 0:
        return 0.0
    factor = _hp_factor(table, -seat_loss, VALUE_SCALE * rules.starting_hp)
    total = 0.0
    for other in range(table.alive.shape[0]):
        if other != seat and table.alive[other]:
            term = 1.0 if table.fight_hp[other] <= 0 else 1.0 / (1.0 + table.outlasts_factor[seat, other] * factor)
            if keep:
                terms[other] = term
            total += term
    return total


@game_inline
def _form(event_seed, round_index, index):
    """The Exp(1) "form" E of a seat (``index``) or of the round's ghost, with events addressed by seat: its
    Gumbel -log E added to its strength decides the fight (:func:`_beats`)."""
    return -np.log1p(-event_uniform(event_seed, STREAM_COMBAT_KEY, round_index, index))


@game_inline
def _beats(table, a, b, form_a, form_b):
    """Whether ``a`` beats ``b`` on this round's boards with forms ``form_a`` and ``form_b`` (:func:`_form`):
    s_a - log form_a > s_b - log form_b for their strengths s, which happens with the combat law's probability
    (the difference of two Gumbels is logistic). Written without a logarithm: form_b > form_a x exp(s_b - s_a),
    the pair's odds (``fight_odds``). A form of 0 is a Gumbel of +inf: it wins, unless the other's is 0 too."""
    if form_a > 0.0:
        return form_b > form_a * table.fight_odds[a, b]
    return form_b > 0.0


@game_inline
def _add_fight_luck(rules, table, seat, won, p_win, damage_if_lost, opponent, damage_to_opponent):
    """The seat's coin and matchmaking terms of a fight against ``opponent`` that it won (or lost) with P(win)
    ``p_win``: it loses ``damage_if_lost`` if it loses, the opponent ``damage_to_opponent`` (0 for a ghost) if
    it wins. The state values are this round's, kept by :func:`prepare_fights`."""
    value_won, value_lost = table.value_now[seat], table.value_if_lost[seat, opponent]
    # The duel's value: the value with the opponent's HP after the fight (unchanged when the seat loses), its
    # one term against the opponent swapped.
    duel_won = (value_won - table.outlasts_now[seat, opponent]
                + _outlasts(rules, table, seat, 0.0, opponent, damage_to_opponent))
    duel_lost = value_lost
    # The gold a win pays now, and the streak gold the next income pays after a win or a loss.
    streak = table.streak[seat]
    gold_won = rules.pvp_win_gold + streak_gold_of(rules, max(streak, 0) + 1)
    gold_lost = streak_gold_of(rules, min(streak, 0) - 1)
    luck = (1.0 if won else 0.0) - p_win
    table.luck[seat, LUCK_COIN] += luck
    table.luck[seat, LUCK_COIN_HP] += luck * damage_if_lost
    table.luck[seat, LUCK_COIN_VALUE] += luck * (value_won - value_lost)
    table.luck[seat, LUCK_COIN_DUEL] += luck * (duel_won - duel_lost)
    table.luck[seat, LUCK_COIN_GOLD] += luck * (gold_won - gold_lost)
    # The opponent drawn: prepare_fights subtracted the mean over the pairing's law.
    table.luck[seat, LUCK_MATCHMAKING] += p_win
    table.luck[seat, LUCK_MATCHMAKING_HP] -= (1.0 - p_win) * damage_if_lost
    table.luck[seat, LUCK_MATCHMAKING_VALUE] += p_win * value_won + (1.0 - p_win) * value_lost


@game_inline
def _add_onlooker_luck(rules, table, a, b, b_takes_damage, a_wins, p_a, damage_a, damage_b):
    """Every other alive seat's term of a's fight against b: (a won - P(a wins)) times the seat's value when a
    wins minus when b wins (only the fighters' HP differ: the sum of its :func:`_outlasts` against them)."""
    luck = (1.0 if a_wins else 0.0) - p_a
    b_beaten_loss = damage_b if b_takes_damage else 0.0  # a ghost loses nothing
    for seat in range(table.alive.shape[0]):
        if seat == a or (seat == b and b_takes_damage) or not table.alive[seat]:
            continue
        a_won = table.outlasts_now[seat, a]
        b_won = _outlasts(rules, table, seat, 0.0, a, damage_a)
        if seat != b:  # b's own board fights elsewhere as a ghost: its HP is not at stake here
            a_won += _outlasts(rules, table, seat, 0.0, b, b_beaten_loss)
            b_won += table.outlasts_now[seat, b]
        table.luck[seat, LUCK_COIN_ONLOOKER] += luck * (a_won - b_won)


@game_internal
def play_fights(rules, table, k, round_index, event_seed, events):
    """The round's fights: the ``k`` alive seats of ``table.order`` (as :func:`autodup.game.rounds.shuffle_alive`
    paired them) fight two by two, and the odd seat out fights the board of another as a ghost
    (:func:`autodup.game.rounds.ghost_of`, drawn after the other fights). One call plays them all: an
    out-of-line call per fight passed the rules and the table field by field (hundreds of words).
    """
    for pair in range((k + 1) // 2):
        a = table.order[2 * pair]
        if 2 * pair + 1 < k:
            b, b_takes_damage = table.order[2 * pair + 1], True
        elif k > 1:
            b, b_takes_damage = ghost_of(table, event_seed, round_index, k, events), False
        else:
            break
        play_fight(rules, table, a, b, b_takes_damage, round_index, pair, event_seed, events)


@game_inline
def play_fight(rules, table, a, b, b_takes_damage, round_index, pair, event_seed, events):
    """``a`` fights ``b`` (a ghost of b's board unless ``b_takes_damage``) on the boards of ``table.fight_*``.

    The winner is drawn with P(a wins) = logistic((log(power_a + 1) - log(power_b + 1)) / combat_scale):
    by position from the pair's coin, by seat from the two seats' forms (the ghost has its own).
    """
    p_a, damage_a, damage_b = _fight_odds(rules, table, a, b, round_index)
    if events == EVENTS_BY_SEAT:
        a_wins = _beats(table, a, b, _form(event_seed, round_index, a),
                        _form(event_seed, round_index, b if b_takes_damage else EVENT_GHOST_INDEX))
    else:
        a_wins = event_uniform(event_seed, STREAM_COMBAT_KEY, round_index, pair) < p_a
    _add_fight_luck(rules, table, a, a_wins, p_a, damage_a, b, damage_b if b_takes_damage else 0.0)
    if b_takes_damage:
        _add_fight_luck(rules, table, b, not a_wins, 1.0 - p_a, damage_b, a, damage_a)
    _add_onlooker_luck(rules, table, a, b, b_takes_damage, a_wins, p_a, damage_a, damage_b)
    winner, loser = (a, b) if a_wins else (b, a)
    damage = damage_b if a_wins else damage_a
    if loser == a or b_takes_damage:
        table.hp[loser] -= damage
        table.streak[loser] = min(table.streak[loser], 0) - 1
    if winner == a or b_takes_damage:
        table.gold[winner] += rules.pvp_win_gold
        table.streak[winner] = max(table.streak[winner], 0) + 1


@game_internal
def prepare_fights(rules, table, round_index, order_scratch, trait_counts):
    """Before the round's fights: each alive seat's board power and HP, and the matchmaking terms' expectations.

    Each alive seat fights exactly once as the one who takes damage, against a
    seat that is uniform over the other alive seats (a real opponent, or the
    board of one as a ghost for the odd seat out), by position or by seat; the
    mean over that law is subtracted here and the drawn opponent's value added
    by the fight (:func:`_add_fight_luck`).
    """
    players = table.alive.shape[0]
    alive = 0
    for seat in range(players):
        if table.alive[seat]:
            # A board is measured again only when its units or level changed since (most rounds, for some
            # seats, nothing did): the measure is a function of them alone.
            if table.board_changed[seat]:
                table.fight_power[seat], table.fight_units[seat] = board_power(rules, table, seat, order_scratch,
                                                                              trait_counts)
                table.fight_strength[seat] = np.log(table.fight_power[seat] + 1.0) / rules.combat_scale
                table.board_changed[seat] = False
            table.fight_hp[seat] = table.hp[seat]
            alive += 1
    if alive < 2:
        return
    # Each pair's odds exp(-(s_a - s_b)), s the strengths, read by the fights (_fight_odds) and by the value's terms
    # (_outlasts): the product of two factors of each seat's, exp(c - s_a) exp(s_b - c) about the strengths'
    # midrange c, so 2 k exponentials a round instead of k (k - 1). While the strengths span at most
    # _FACTORED_SPREAD, no factor leaves [exp(-300), exp(300)], nor a product [exp(-600), exp(600)]; beyond it
    # (a very small combat scale), each pair's odds are one exponential of their difference.
    lowest, highest = np.inf, -np.inf
    for seat in range(players):
        if table.alive[seat]:
            lowest = min(lowest, table.fight_strength[seat])
            highest = max(highest, table.fight_strength[seat])
    factored = highest - lowest <= _FACTORED_SPREAD
    scale = VALUE_SCALE * rules.starting_hp
    if factored:
        center = 0.5 * (lowest + highest)
        for seat in range(players):
            if table.alive[seat]:
                table.fight_weakness[seat] = np.exp(center - table.fight_strength[seat])
                table.fight_threat[seat] = np.exp(table.fight_strength[seat] - center)
    for a in range(players):
        if table.alive[a]:
            for b in range(players):
                if b != a and table.alive[b]:
                    if factored:
                        table.fight_odds[a, b] = table.fight_weakness[a] * table.fight_threat[b]
                    else:
                        table.fight_odds[a, b] = np.exp(table.fight_strength[b] - table.fight_strength[a])
                    table.outlasts_factor[a, b] = (_hp_factor(table, table.fight_hp[a] - table.fight_hp[b], scale)
                                                   * table.fight_odds[a, b])
    # The values the fights' terms weigh outcomes by are kept for them (_add_fight_luck).
    damages = table.loss_damage
    for seat in range(players):
        if not table.alive[seat]:
            continue
        # Its terms are kept: the fights' luck terms read them again (_add_fight_luck, _add_onlooker_luck).
        table.value_now[seat] = _value(rules, table, seat, 0.0, table.outlasts_now[seat], True)
        p_mean, hp_mean, value_mean = 0.0, 0.0, 0.0
        distinct = 0
        for other in range(players):
            if other == seat or not table.alive[other]:
                continue
            p_win, damage_if_lost, _ = _fight_odds(rules, table, seat, other, round_index)
            # The value after a loss depends on the damage alone: computed once per distinct damage.
            same = -1
            for k in range(distinct):
                if damages[k] == damage_if_lost:
                    same = table.loss_opponent[k]
                    break
            if same >= 0:
                table.value_if_lost[seat, other] = table.value_if_lost[seat, same]
            else:
                damages[distinct], table.loss_opponent[distinct] = damage_if_lost, other
                distinct += 1
                table.value_if_lost[seat, other] = _value(rules, table, seat, damage_if_lost, table.outlasts_now[seat],
                                                          False)
            p_mean += p_win
            hp_mean += (1.0 - p_win) * damage_if_lost
            value_mean += p_win * table.value_now[seat] + (1.0 - p_win) * table.value_if_lost[seat, other]
        table.luck[seat, LUCK_MATCHMAKING] -= p_mean / (alive - 1)
        table.luck[seat, LUCK_MATCHMAKING_HP] += hp_mean / (alive - 1)
        table.luck[seat, LUCK_MATCHMAKING_VALUE] -= value_mean / (alive - 1)


@game_internal
def eliminate(rules, table, round_index, event_seed, alive_before, order_scratch, final_champion, final_star):
    """Seats at 0 HP or below leave; they take the worst free places, by HP (ties by the event stream).

    Their boards are recorded (:func:`record_final_board`) before their units return to the pool.
    """
    dying = 0
    for seat in range(table.alive.shape[0]):
        if table.alive[seat] and table.hp[seat] <= 0:
            dying += 1
    if dying == 0:
        return alive_before
    rank_seats(table, event_seed, round_index, True, alive_before)
    for seat in range(table.alive.shape[0]):
        if table.alive[seat] and table.hp[seat] <= 0:
            table.alive[seat] = False
            record_final_board(rules, table, seat, order_scratch, final_champion, final_star)
            clear_shop(rules, table.shops, seat, table.pool, table.tier_totals)
            while table.n_units[seat] > 0:
                u = table.n_units[seat] - 1
                move_copies(rules, table.pool, table.tier_totals, table.unit_champion[seat, u],
                            copies_of_star(table.unit_star[seat, u]))
                remove_unit(rules, table, seat, u)
    return alive_before - dying


@game_inline
def _is_ranked(table, seat, only_dying):
    return table.alive[seat] and (not only_dying or table.hp[seat] <= 0)


@game_internal
def rank_seats(table, event_seed, round_index, only_dying, places_up_to):
    """Give places ``places_up_to, places_up_to - 1, ...`` to alive seats (only the dying ones if asked),
    worst HP first; ties broken by the event stream."""
    players = table.alive.shape[0]
    keys = table.event_keys  # free between a round's serving order and the next round's
    for seat in range(players):
        keys[seat] = np.inf
        if _is_ranked(table, seat, only_dying):
            keys[seat] = table.hp[seat] + 0.5 * event_uniform(event_seed, STREAM_TIEBREAK_KEY, round_index, seat)
    place = places_up_to
    for _ in range(players):
        seat = np.argmin(keys)
        if keys[seat] == np.inf:
            break
        table.placement[seat] = place
        place -= 1
        keys[seat] = np.inf
    # Seats with the same HP share their places uniformly: the term is the tie's mean place minus the place.
    for seat in range(players):
        if _is_ranked(table, seat, only_dying):
            total, count = 0.0, 0
            for other in range(players):
                if _is_ranked(table, other, only_dying) and table.hp[other] == table.hp[seat]:
                    total += table.placement[other]
                    count += 1
            table.luck[seat, LUCK_TIEBREAK] += total / count - table.placement[seat]
