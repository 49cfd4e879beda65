#!/usr/bin/env python3
"""Solo-piece move counts for every piece kind of tenjiku and tai shogi, derived by hand from the
rules texts shared/rules/tenjiku.md (+ chu.md section 3 for the chu pieces it reuses) and
shared/rules/tai.md -- independently of shogilab's generator and of configs/variants/*.toml
(the TOML files were read only for the spelling of SFEN tokens).

Usage:  python3 tests/data/solo/derive.py [--write]
  prints both perft files; with --write, writes tests/data/perft/tenjiku-solo.perft and
  tests/data/perft/tai-solo.perft.

Each position: one Black piece alone on an empty board, Black to move, depth 1.

Counting convention (ARCHITECTURE.md "Two list conventions", Distinct): one move per distinct
outcome. On an empty board a lone piece has no captures, so every move is "go to square T" and
the count is the number of distinct destination squares T != origin, plus
  * one pass for a piece that can pass (a move that returns to its own square: lion-type double
    step, linear lion power, lion dog, area move; "each piece has at most one pass"),
  * tenjiku only: a promotable piece whose move starts outside and ends inside the promotion zone
    has two moves to that square (promote / decline) -- except where promotion is compulsory
    (pawn, lance, iron general reaching the last rank, knight the last two ranks: one move).
Tai has no promotion zone (promotion only by capture), so no doubling there.

Direction table notation (Black's point of view, forward = towards rank a; l/r = the owner's
left/right):
  columns   f  b  l  r  fl  fr  bl  br
  "-"       no move in that direction
  "1".."5"  up to n squares along the line, never jumping (1 = one step)
  "S"       unlimited slide
  "J2"      jump to the 2nd square only (not the 1st)         (Betza D / A atoms)
  "1J2"     one step, or a jump to the 2nd square               (donkey forward/back)
  "L2"      two-square linear lion power: 1st square, 2nd square (jump), pass via the 1st
  "L3"      lion-dog power: 1st..3rd squares, pass via the 1st
  "X"       tetrarch skipping slide: 2nd square outward, unlimited (never the 1st)
  "X3"      tetrarch sideways: 2nd or 3rd square only
Extras: "knight" (2 forward + 1 sideways), "lion" (5x5 area + pass), "area3" (area move of up to
three king steps: every square within king distance 3, plus return to the origin = pass/burn),
"hook-orth", "hook-diag", "hook-fdiag" (one optional 90-degree turn on an empty square after the
first leg), "emperor" (any square of the board), "pass" (explicit).
"""

import sys
from pathlib import Path

# (dx, dy): x = column index from Black's LEFT (file N is x = 0, file 1 is x = N-1), y = rank
# index from the top (rank a = 0). Black's forward = dy -1, Black's left = dx -1.
DIRS = {
    "f": (0, -1), "b": (0, 1), "l": (-1, 0), "r": (1, 0),
    "fl": (-1, -1), "fr": (1, -1), "bl": (-1, 1), "br": (1, 1),
}
ORDER = ["f", "b", "l", "r", "fl", "fr", "bl", "br"]
ORTH = ["f", "b", "l", "r"]
DIAG = ["fl", "fr", "bl", "br"]
PERP = {  # the two lines perpendicular to a direction (a 90-degree turn)
    "f": ["l", "r"], "b": ["l", "r"], "l": ["f", "b"], "r": ["f", "b"],
    "fl": ["fr", "bl"], "br": ["fr", "bl"], "fr": ["fl", "br"], "bl": ["fl", "br"],
}


def P(name, token, dirs, extras="", promo="", ref=""):
    """One piece kind: dirs = 8 entries in ORDER (f b l r fl fr bl br)."""
    cells = dirs.split()
    assert len(cells) == 8, (name, dirs)
    return dict(name=name, token=token, dirs=dict(zip(ORDER, cells)),
                extras=set(extras.split()), promo=promo, ref=ref)


# --------------------------------------------------------------------------------------------
# TENJIKU. Rules: shared/rules/tenjiku.md section 2 (tokens, promotions), section 3 (moves: the
# chu table, which defers to chu.md section 3, and the tenjiku-specific table), 3.1-3.7.
# Token column: this project's SFEN spelling (tenjiku.md 4.1 gives the HaChu-style token in
# brackets, which the engine accepts as an alias; the brace form is what it writes).
# promo: "" = not promotable (already promoted, or "—" in the table); "p" = promotable;
#        "last1" / "last2" = promotable and must promote on reaching the last / last two ranks
#        (tenjiku.md section 5: pawn, lance, iron general on the last rank; knight last two).
#                                   f   b   l   r   fl  fr  bl  br
TENJIKU = [
    # chu.md 3: "One step in any of the 8 directions. Royal."  (tenjiku 2.1: K, does not promote)
    P("king", "K",                 "1   1   1   1   1   1   1   1", ref="chu 3 King"),
    # chu.md 3: "One step in any direction except straight backward (7)."  promotes to prince
    P("drunk elephant", "E",       "1   -   1   1   1   1   1   1", promo="p", ref="chu 3"),
    # chu.md 3: "One step orthogonally or diagonally forward (6)."  -> rook
    P("gold general", "G",         "1   1   1   1   1   1   -   -", promo="p", ref="chu 3"),
    # chu.md 3: "One step diagonally or straight forward (5)."  -> vertical mover
    P("silver general", "S",       "1   -   -   -   1   1   1   1", promo="p", ref="chu 3"),
    # chu.md 3: "One step straight or diagonally forward, or straight backward (4)." -> side mover
    P("copper general", "C",       "1   1   -   -   1   1   -   -", promo="p", ref="chu 3"),
    # tenjiku 3: "One step straight or diagonally forward (3)." -> vertical soldier; stuck on rank a
    P("iron general", "I",         "1   -   -   -   1   1   -   -", promo="last1", ref="tenjiku 3 [I]"),
    # chu.md 3: "One step forward or backward, straight or diagonal — not sideways (6)." -> bishop
    P("ferocious leopard", "F",    "1   1   -   -   1   1   1   1", promo="p", ref="chu 3"),
    # tenjiku 3: "Shogi knight: leaps two forward and one sideways." -> side soldier; stuck a/b
    P("knight", "J",               "-   -   -   -   -   -   -   -", "knight", promo="last2", ref="tenjiku 3 [N]"),
    # chu.md 3: "Slides straight forward." -> white horse; stuck on rank a
    P("lance", "L",                "S   -   -   -   -   -   -   -", promo="last1", ref="chu 3"),
    # chu.md 3: "Slides straight forward or straight backward." -> whale
    P("reverse chariot", "A",      "S   S   -   -   -   -   -   -", promo="p", ref="chu 3"),
    # tenjiku 3: "Slides diagonally and vertically; up to 2 squares sideways." -> heavenly tetrarch
    P("chariot soldier", "{CS}",   "S   S   2   2   S   S   S   S", promo="p", ref="tenjiku 3 [C!]"),
    # chu.md 3: "One step in any direction except straight forward (7)." -> flying stag
    P("blind tiger", "T",          "-   1   1   1   1   1   1   1", promo="p", ref="chu 3"),
    # chu.md 3: "One diagonal step, or a jump to the 2nd square straight forward, backward, left
    # or right." -> lion
    P("kirin", "O",                "J2  J2  J2  J2  1   1   1   1", promo="p", ref="chu 3"),
    # chu.md 3.1 / tenjiku 3.4: 24-square single moves (step or 5x5 jump), pass -> lion hawk
    P("lion", "N",                 "-   -   -   -   -   -   -   -", "lion", promo="p", ref="chu 3.1, tenjiku 3.4"),
    # chu.md 3: "Slides in all 8 directions." -> free eagle
    P("queen", "Q",                "S   S   S   S   S   S   S   S", promo="p", ref="chu 3"),
    # chu.md 3: "One orthogonal step, or a jump to the 2nd square along any diagonal." -> queen
    P("phoenix", "X",              "1   1   1   1   J2  J2  J2  J2", promo="p", ref="chu 3"),
    # tenjiku 3: "Slides sideways; up to 2 squares straight forward; 1 step straight back."
    # -> water buffalo
    P("side soldier", "{SS}",      "2   1   S   S   -   -   -   -", promo="p", ref="tenjiku 3 [S']"),
    # tenjiku 3: "Slides straight forward; up to 2 squares sideways; 1 step straight back."
    # -> chariot soldier
    P("vertical soldier", "{VS}",  "S   1   2   2   -   -   -   -", promo="p", ref="tenjiku 3 [V']"),
    # chu.md 3: "Slides diagonally." -> dragon horse
    P("bishop", "B",               "-   -   -   -   S   S   S   S", promo="p", ref="chu 3"),
    # chu.md 3: "Bishop slides plus one orthogonal step." -> horned falcon
    P("dragon horse", "H",         "1   1   1   1   S   S   S   S", promo="p", ref="chu 3"),
    # chu.md 3: "Rook slides plus one diagonal step." -> soaring eagle
    P("dragon king", "D",          "S   S   S   S   1   1   1   1", promo="p", ref="chu 3"),
    # tenjiku 3: "Slides diagonally and sideways; up to 2 squares straight forward or back."
    # (default 'both directions', section 10) -> fire demon
    P("water buffalo", "{WB}",     "2   2   S   S   S   S   S   S", promo="p", ref="tenjiku 3 [W!], 10"),
    # tenjiku 3.3: "slides diagonally and sideways (BsR) or the area move of 3.2"; 3.2: return to
    # the origin = stationary burn (here: nothing to burn, one pass-like move). Unpromotable.
    P("fire demon", "{FD}",        "-   -   S   S   S   S   S   S", "area3", ref="tenjiku 3.2, 3.3 [D!]"),
    # tenjiku 3.6 default (CVP): queen slides, diagonal jump to the 2nd square, capture-first
    # diagonal lion power (needs an enemy: nothing alone); no pass by default. Unpromotable.
    P("free eagle", "{FE}",        "S   S   S   S   S   S   S   S", ref="tenjiku 3.6 [Q']"),
    # tenjiku 3.4: "the same [chu lion] plus bishop slides beyond the second ring". Unpromotable.
    P("lion hawk", "{LH}",         "-   -   -   -   S   S   S   S", "lion", ref="tenjiku 3.4 [H!]"),
    # chu.md 3: "Slides sideways; one step straight forward or backward." -> free boar
    P("side mover", "M",           "1   1   S   S   -   -   -   -", promo="p", ref="chu 3"),
    # chu.md 3: "Slides straight forward or backward; one step sideways." -> flying ox
    P("vertical mover", "V",       "S   S   1   1   -   -   -   -", promo="p", ref="chu 3"),
    # chu.md 3: "Slides orthogonally." -> dragon king
    P("rook", "R",                 "S   S   S   S   -   -   -   -", promo="p", ref="chu 3"),
    # chu.md 3.2: slides diagonally, sideways, straight back; forward: step F1 / jump F2 / pass
    # -> bishop general
    P("horned falcon", "{HF}",     "L2  S   S   S   S   S   S   S", promo="p", ref="chu 3.2 [F!]"),
    # chu.md 3.2: slides orthogonally and diagonally back; each forward diagonal: 2-square lion
    # power (one pass in all) -> rook general
    P("soaring eagle", "{SE}",     "S   S   S   S   L2  L2  S   S", promo="p", ref="chu 3.2 [E!]"),
    # tenjiku 3.1: non-capturing moves are ordinary slides (diagonal); -> vice general
    P("bishop general", "{BG}",    "-   -   -   -   S   S   S   S", promo="p", ref="tenjiku 3.1 [B!]"),
    # tenjiku 3.1: orthogonal slides -> great general
    P("rook general", "{RG}",      "S   S   S   S   -   -   -   -", promo="p", ref="tenjiku 3.1 [R!]"),
    # tenjiku 3.1/3.2: bishop slides + area move (destinations within king distance 3, plus the
    # origin = pass). Unpromotable.
    P("vice general", "{VG}",      "-   -   -   -   S   S   S   S", "area3", ref="tenjiku 3.1, 3.2 [V!]"),
    # tenjiku 3.1: slides in all eight directions. Unpromotable.
    P("great general", "{GG}",     "S   S   S   S   S   S   S   S", ref="tenjiku 3.1 [Q!]"),
    # chu.md 3: "One step straight forward." -> gold; must promote on rank a
    P("pawn", "P",                 "1   -   -   -   -   -   -   -", promo="last1", ref="chu 3"),
    # tenjiku 3: "One step straight forward or diagonally backward (3)." -> multi general
    P("dog", "{DG}",               "1   -   -   -   -   -   1   1", promo="p", ref="tenjiku 3 [D']"),
    # ---- kinds that only arise by promotion (tenjiku 2.2); a promoted piece never promotes
    # chu.md 3: Prince "Same as king"
    P("prince", "+E",              "1   1   1   1   1   1   1   1", ref="chu 3"),
    # chu.md 3: "Slides straight forward/backward; one step in each of the other 6 directions."
    P("flying stag", "+T",         "S   S   1   1   1   1   1   1", ref="chu 3"),
    # chu.md 3: "Slides diagonally and straight forward/backward (not sideways)."
    P("flying ox", "+V",           "S   S   -   -   S   S   S   S", ref="chu 3"),
    # chu.md 3: "Slides diagonally and sideways (not vertically)."
    P("free boar", "+M",           "-   -   S   S   S   S   S   S", ref="chu 3"),
    # chu.md 3: "Slides straight forward/backward and diagonally backward."
    P("whale", "+A",               "S   S   -   -   -   -   S   S", ref="chu 3"),
    # chu.md 3: "Slides straight forward/backward and diagonally forward."
    P("white horse", "+L",         "S   S   -   -   S   S   -   -", ref="chu 3"),
    # tenjiku 3: "Slides straight forward or diagonally backward."
    P("multi general", "+{DG}",    "S   -   -   -   -   -   S   S", ref="tenjiku 3"),
    # tenjiku 3.5: never to an adjacent square; diagonals and verticals from the 2nd square
    # outward; sideways 2nd or 3rd square; igui (needs an enemy); no pass. Default: verticals in.
    P("heavenly tetrarch", "+{CS}", "X   X   X3  X3  X   X   X   X", ref="tenjiku 3.5"),
]

# --------------------------------------------------------------------------------------------
# TAI. Rules: shared/rules/tai.md section 2.2 Table A (#1-93) and Table B (#94-101), column
# "Move (default ruleset)"; special mechanics 2.3.1-2.3.6. Tokens: the "Code" column (2.1:
# one-letter bare, longer in braces; promotion-only kinds are written as the promoted front
# piece, 2.1: `+{DV}` teaching king etc.). No promotion zone (4.2), so promo is irrelevant.
#                                   f   b   l   r   fl  fr  bl  br
TAI = [
    P("emperor", "E",              "-   -   -   -   -   -   -   -", "emperor", ref="#1, 2.3.1"),
    P("prince", "{CP}",            "1   1   1   1   1   1   1   1", ref="#2"),
    # #3 "Slides any distance orthogonally; may optionally make one 90 deg turn" (2.3.5)
    P("hook mover", "{HM}",        "S   S   S   S   -   -   -   -", "hook-orth", ref="#3, 2.3.5"),
    # #4 "Steps one square orthogonally; or slides diagonally with an optional single 90 deg turn"
    P("long-nosed goblin", "{LGN}", "1   1   1   1   S   S   S   S", "hook-diag", ref="#4, 2.3.5"),
    P("capricorn", "{CA}",         "-   -   -   -   S   S   S   S", "hook-diag", ref="#5, 2.3.5"),
    # #6 forward diagonals with a turn either way (second leg may point backward); 1-2 back-diag
    P("peacock", "{PC}",           "-   -   -   -   S   S   2   2", "hook-fdiag", ref="#6, 2.3.5, D10"),
    # #7 orthogonal + backward-diagonal slides; 2-square lion power on each forward diagonal
    P("soaring eagle", "{SE}",     "S   S   S   S   L2  L2  S   S", ref="#7, 2.3.3"),
    # #8 diagonal, sideways, backward slides; 2-square lion power straight forward
    P("horned falcon", "{HF}",     "L2  S   S   S   S   S   S   S", ref="#8, 2.3.3"),
    P("queen", "{FK}",             "S   S   S   S   S   S   S   S", ref="#9"),
    # #10 "every direction except straight backward"
    P("rushing bird", "{RB}",      "S   -   S   S   S   S   S   S", ref="#10"),
    # #11 diagonals + sideways unlimited; 1-5 forward/backward
    P("free demon", "{FDE}",       "5   5   S   S   S   S   S   S", ref="#11"),
    # #12 diagonals + vertical unlimited; 1-5 sideways
    P("free dream-eater", "{FTP}", "S   S   5   5   S   S   S   S", ref="#12"),
    P("water buffalo", "{WBF}",    "2   2   S   S   S   S   S   S", ref="#13"),
    P("flying ox", "{FO}",         "S   S   -   -   S   S   S   S", ref="#14"),
    P("soldier", "{SO}",           "S   S   S   S   -   -   S   S", ref="#15, D16"),
    P("dragon king", "{DK}",       "S   S   S   S   1   1   1   1", ref="#16"),
    P("dragon horse", "{DH}",      "1   1   1   1   S   S   S   S", ref="#17"),
    P("racing chariot", "{SCH}",   "S   S   S   S   -   -   1   1", ref="#18"),
    P("rook", "R",                 "S   S   S   S   -   -   -   -", ref="#19"),
    P("bishop", "B",               "-   -   -   -   S   S   S   S", ref="#20"),
    P("white horse", "{WH}",       "S   S   -   -   S   S   -   -", ref="#21"),
    P("whale", "W",                "S   S   -   -   -   -   S   S", ref="#22"),
    # #23 slides f, fl, fr; 1-2 sideways, straight back, backward diagonals
    P("standard bearer", "{SBR}",  "S   2   2   2   S   S   2   2", ref="#23"),
    # #24 default: slides back + forward diagonals; 1-2 backward diagonals; 1 step forward
    P("vermilion sparrow", "{VS}", "1   S   -   -   S   S   2   2", ref="#24, D9"),
    # #25 default: slides forward + forward diagonals; 1-2 backward diagonals; 1 step back
    P("turtle-snake", "{TS}",      "S   1   -   -   S   S   2   2", ref="#25, D9"),
    # #26 slides sideways + forward-right; 1-2 forward/back; 1 step forward-left
    P("blue dragon", "{BD}",       "2   2   S   S   1   S   -   -", ref="#26"),
    # #27 slides forward/back + forward-left; 1-2 sideways; 1 step forward-right
    P("white tiger", "{WT}",       "S   S   2   2   S   1   -   -", ref="#27"),
    # #28 slides forward, forward-right, backward-left; 1 step back
    P("right chariot", "{RCH}",    "S   1   -   -   -   S   S   -", ref="#28"),
    # #29 slides forward, forward-left, backward-right; 1 step back
    P("left chariot", "{LCH}",     "S   1   -   -   S   -   -   S", ref="#29"),
    P("side dragon", "{SDR}",      "S   1   S   S   -   -   -   -", ref="#30"),
    # #31 "1-2 squares orthogonally; 1-5 squares diagonally"
    P("dove", "D",                 "2   2   2   2   5   5   5   5", ref="#31"),
    # #32 "1-5 squares orthogonally; 1-2 squares diagonally"
    P("she-devil", "{SD}",         "5   5   5   5   2   2   2   2", ref="#32"),
    # #33 slides vertically; 1-3 diagonally; 1-2 sideways
    P("golden bird", "{GBD}",      "S   S   2   2   3   3   3   3", ref="#33"),
    # #34 slides sideways; 1-3 diagonally; 1-2 vertically
    P("great dragon", "{GD}",      "2   2   S   S   3   3   3   3", ref="#34"),
    # #35 slides backward diagonals; 1-2 in the other six directions
    P("white elephant", "{WE}",    "2   2   2   2   2   2   S   S", ref="#35"),
    # #36 / 2.3.4: up to three squares along one of 8 lines (jumping), pass via s1
    P("lion dog", "{LD}",          "L3  L3  L3  L3  L3  L3  L3  L3", ref="#36, 2.3.4"),
    P("wrestler", "{WR}",          "-   -   1   1   3   3   3   3", ref="#37"),
    P("guardian of the gods", "{GG}", "3   3   3   3   1   1   -   -", ref="#38"),
    P("buddhist devil", "{BDE}",   "-   1   1   1   3   3   -   -", ref="#39"),
    P("golden deer", "{GDE}",      "-   -   -   -   S   S   2   2", ref="#40"),
    P("silver hare", "{SDE}",      "-   -   -   -   2   2   S   S", ref="#41"),
    P("fierce eagle", "{FE}",      "-   -   1   1   2   2   2   2", ref="#42, D8"),
    P("old kite", "{OK}",          "2   2   2   2   1   1   -   -", ref="#43"),
    P("violent ox", "{VO}",        "2   2   2   2   -   -   -   -", ref="#44"),
    P("flying dragon", "{FD}",     "-   -   -   -   2   2   2   2", ref="#45"),
    P("old rat", "{OR}",           "-   2   -   -   2   2   -   -", ref="#46"),
    P("enchanted badger", "{EBA}", "2   -   2   2   -   -   -   -", ref="#47"),
    P("flying horse", "{FH}",      "1   1   1   1   2   2   -   -", ref="#48"),
    # #49 "Steps one square diagonally (4 ways) or straight forward; 1-2 squares sideways."
    P("prancing stag", "{PST}",    "1   -   2   2   1   1   1   1", ref="#49"),
    P("violent bear", "{VBE}",     "-   -   1   1   2   2   -   -", ref="#50"),
    P("side mover", "{SM}",        "1   1   S   S   -   -   -   -", ref="#51"),
    P("vertical mover", "{VM}",    "S   S   1   1   -   -   -   -", ref="#52"),
    P("reverse chariot", "{RC}",   "S   S   -   -   -   -   -   -", ref="#53"),
    # #54 "Steps one square sideways; jumps to the 2nd square straight forward; jumps to the 2nd
    # square along either backward diagonal."
    P("poisonous snake", "{PS}",   "J2  -   1   1   -   -   J2  J2", ref="#54, D18"),
    # #55 / 2.3.2: chu lion, pass
    P("lion", "{LN}",              "-   -   -   -   -   -   -   -", "lion", ref="#55, 2.3.2"),
    P("kirin", "{KY}",             "J2  J2  J2  J2  1   1   1   1", ref="#56"),
    P("phoenix", "{PH}",           "1   1   1   1   J2  J2  J2  J2", ref="#57"),
    # #58 1-2 forward diagonals; 1 step sideways or backward diagonals
    P("northern barbarian", "{NB}", "-   -   1   1   2   2   1   1", ref="#58"),
    # #59 1-2 backward diagonals; 1 step sideways or forward diagonals
    P("southern barbarian", "{SB}", "-   -   1   1   1   1   2   2", ref="#59"),
    # #60 1-2 forward/backward; 1 step sideways or forward diagonals
    P("eastern barbarian", "{EB}", "2   2   1   1   1   1   -   -", ref="#60"),
    # #61 1-2 sideways; 1 step forward/backward or forward diagonals
    P("western barbarian", "{WB}", "1   1   2   2   1   1   -   -", ref="#61"),
    P("blind bear", "{BB}",        "-   S   -   -   1   1   1   1", ref="#62"),
    P("drunk elephant", "{DE}",    "1   -   1   1   1   1   1   1", ref="#63"),
    P("neighboring king", "{NK}",  "1   1   1   1   1   1   1   1", ref="#64, D7"),
    P("blind tiger", "{BT}",       "-   1   1   1   1   1   1   1", ref="#65"),
    P("blind monkey", "{BM}",      "-   -   1   1   1   1   1   1", ref="#66"),
    P("ferocious leopard", "{FL}", "1   1   -   -   1   1   1   1", ref="#67"),
    P("reclining dragon", "{RD}",  "1   1   1   1   -   -   1   1", ref="#68"),
    P("chinese cock", "{CC}",      "-   1   1   1   1   1   -   -", ref="#69"),
    P("old monkey", "{OM}",        "-   1   -   -   1   1   1   1", ref="#70"),
    P("evil wolf", "{EW}",         "1   -   1   1   1   1   -   -", ref="#71"),
    P("angry boar", "{AB}",        "1   1   1   1   -   -   -   -", ref="#72"),
    P("cat sword", "{CSW}",        "-   -   -   -   1   1   1   1", ref="#73"),
    P("coiled serpent", "{CS}",    "1   1   -   -   -   -   1   1", ref="#74"),
    # #75 "forward-left, forward-right, left, or backward-right"
    P("deva", "{DV}",              "-   -   1   -   1   1   -   1", ref="#75, D6"),
    # #76 "forward-left, forward-right, right, or backward-left"
    P("dark spirit", "{DSP}",      "-   -   -   1   1   1   1   -", ref="#76, D6"),
    # #77 "any direction except straight to the right"
    P("right general", "{RG}",     "1   1   1   -   1   1   1   1", ref="#77"),
    # #78 "any direction except straight to the left"
    P("left general", "{LG}",      "1   1   -   1   1   1   1   1", ref="#78"),
    P("gold general", "G",         "1   1   1   1   1   1   -   -", ref="#79"),
    P("silver general", "S",       "1   -   -   -   1   1   1   1", ref="#80"),
    P("copper general", "C",       "1   1   -   -   1   1   -   -", ref="#81"),
    P("tile general", "T",         "-   1   -   -   1   1   -   -", ref="#82"),
    P("iron general", "I",         "1   -   -   -   1   1   -   -", ref="#83"),
    P("wood general", "{WO}",      "-   -   -   -   2   2   -   -", ref="#84"),
    P("stone general", "{ST}",     "-   -   -   -   1   1   -   -", ref="#85"),
    P("earth general", "{EA}",     "1   1   -   -   -   -   -   -", ref="#86"),
    P("go-between", "{GB}",        "1   1   -   -   -   -   -   -", ref="#87"),
    P("knight", "N",               "-   -   -   -   -   -   -   -", "knight", ref="#88"),
    P("howling dog", "{HD}",       "S   1   -   -   -   -   -   -", ref="#89"),
    # #90 "Steps one square orthogonally; jumps to the 2nd square straight forward or backward."
    P("donkey", "{DO}",            "1J2 1J2 1   1   -   -   -   -", ref="#90, D5"),
    P("ram's-head soldier", "{RS}", "-   -   -   -   S   S   -   -", ref="#91"),
    P("lance", "L",                "S   -   -   -   -   -   -   -", ref="#92"),
    P("pawn", "P",                 "1   -   -   -   -   -   -   -", ref="#93"),
    # ---- Table B: kinds that only appear by promotion (written as the promoted front piece)
    # #94 "Queen plus the lion dog's linear 3-square lion power in all 8 directions"
    P("teaching king", "+{DV}",    "S   S   S   S   S   S   S   S", "pass", ref="#94, 2.3.4, D4"),
    # #95 "Queen plus full lion power"
    P("buddhist spirit", "+{DSP}", "S   S   S   S   S   S   S   S", "lion", ref="#95, 2.3.2"),
    # #96 "Lion plus lion dog: any lion move or any lion-dog move"
    P("furious fiend", "+{LN}",    "L3  L3  L3  L3  L3  L3  L3  L3", "lion", ref="#96"),
    # #97 "1-3 squares straight forward, straight backward or along either forward diagonal;
    # 1-5 squares sideways or along either backward diagonal. No jumping."
    P("great elephant", "+{LD}",   "3   3   5   5   3   3   5   5", ref="#97, D19"),
    # #98 "Slides along both forward diagonals; 1-2 squares in each of the other six directions."
    P("fragrant elephant", "+{NB}", "2   2   2   2   S   S   2   2", ref="#98"),
    # #99 "Slides diagonally (4 ways) and straight forward; steps one square straight backward."
    P("wizard stork", "+{CC}",     "S   1   -   -   S   S   S   S", ref="#99"),
    # #100 "Slides diagonally (4 ways) and straight backward; steps one square straight forward."
    P("mountain witch", "+{BM}",   "1   S   -   -   S   S   S   S", ref="#100"),
    # #101 "Slides orthogonally; steps one square along either forward diagonal."
    P("square mover", "+{PST}",    "S   S   S   S   1   1   -   -", ref="#101"),
]


def count(piece, w, h, x0, y0, zone_depth=0):
    """Return (moves, destinations, passes, promotion_extra) for a lone Black piece on (x0, y0)."""
    on = lambda x, y: 0 <= x < w and 0 <= y < h
    dest = set()
    can_pass = "pass" in piece["extras"]

    def ray(d, lo, hi):
        dx, dy = DIRS[d]
        for n in range(lo, hi + 1):
            x, y = x0 + n * dx, y0 + n * dy
            if not on(x, y):
                break
            dest.add((x, y))

    BIG = max(w, h)
    for d, cell in piece["dirs"].items():
        if cell == "-":
            continue
        elif cell == "S":
            ray(d, 1, BIG)
        elif cell.isdigit():
            ray(d, 1, int(cell))
        elif cell == "J2":
            ray(d, 2, 2)
        elif cell == "1J2":
            ray(d, 1, 2)
        elif cell == "L2":
            ray(d, 1, 2)
            can_pass = True
        elif cell == "L3":
            ray(d, 1, 3)
            can_pass = True
        elif cell == "X":
            ray(d, 2, BIG)
        elif cell == "X3":
            ray(d, 2, 3)
        else:
            raise ValueError(cell)

    ex = piece["extras"]
    if "knight" in ex:
        for dx in (-1, 1):
            if on(x0 + dx, y0 - 2):
                dest.add((x0 + dx, y0 - 2))
    if "lion" in ex:  # every square of the 5x5 block around the origin; pass via an empty A square
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                if (dx or dy) and on(x0 + dx, y0 + dy):
                    dest.add((x0 + dx, y0 + dy))
        can_pass = True
    if "area3" in ex:  # tenjiku 3.2: every square within king distance 3; origin = pass/burn
        for dx in range(-3, 4):
            for dy in range(-3, 4):
                if (dx or dy) and on(x0 + dx, y0 + dy):
                    dest.add((x0 + dx, y0 + dy))
        can_pass = True
    if "emperor" in ex:
        dest |= {(x, y) for x in range(w) for y in range(h)}
    hooks = [h_ for h_ in ("hook-orth", "hook-diag", "hook-fdiag") if h_ in ex]
    for hk in hooks:
        first = {"hook-orth": ORTH, "hook-diag": DIAG, "hook-fdiag": ["fl", "fr"]}[hk]
        for d in first:
            dx, dy = DIRS[d]
            n = 1
            while on(x0 + n * dx, y0 + n * dy):  # turn on any (empty) square of the first leg
                tx, ty = x0 + n * dx, y0 + n * dy
                for d2 in PERP[d]:
                    ex2, ey2 = DIRS[d2]
                    m = 1
                    while on(tx + m * ex2, ty + m * ey2):
                        dest.add((tx + m * ex2, ty + m * ey2))
                        m += 1
                n += 1
    dest.discard((x0, y0))  # arriving back on the origin is the pass, counted separately

    extra = 0
    if zone_depth and piece["promo"]:
        for (x, y) in dest:
            if y < zone_depth and y0 >= zone_depth:  # starts outside, ends inside the zone
                forced = (piece["promo"] == "last1" and y == 0) or (
                    piece["promo"] == "last2" and y <= 1)
                extra += 0 if forced else 1  # forced: only the promoting move exists
    passes = 1 if can_pass else 0
    return len(dest) + passes + extra, len(dest), passes, extra


def sfen(token, w, h, x0, y0):
    rows = []
    for y in range(h):
        if y == y0:
            left, right = x0, w - x0 - 1
            rows.append((str(left) if left else "") + token + (str(right) if right else ""))
        else:
            rows.append(str(w))
    return "/".join(rows) + " b - 1"


def render(variant, pieces, w, h, x0, y0, zone, header):
    out = [header.rstrip()]
    for p in pieces:
        n, nd, npass, nprom = count(p, w, h, x0, y0, zone)
        parts = [f"{nd} squares"]
        if npass:
            parts.append("1 pass")
        if nprom:
            parts.append(f"{nprom} promotion choices")
        out.append(f"# {p['name']} ({p['token']}; {p['ref']}): {' + '.join(parts)}")
        out.append(f"{sfen(p['token'], w, h, x0, y0)} ;D1 {n}")
    return "\n".join(out) + "\n"


TENJIKU_HEADER = """\
# Tenjiku solo-piece counts (distinct convention), one line per piece kind (36 in the start
# array + 8 that only arise by promotion = 44). Derived BY HAND from shared/rules/tenjiku.md
# (and chu.md section 3 for the chu pieces) by tests/data/solo/derive.py -- a direction table
# transcribed from the rules text; independent of shogilab's generator and of
# configs/variants/tenjiku.toml (used only for token spelling). Regenerate:
#   python3 tests/data/solo/derive.py --write
# Each piece stands alone on 8i (rank i = 9th from the top, 8 squares to its left, 7 to its
# right, 8 ranks ahead, 7 behind), Black to move. 8i is outside Black's 5-rank zone (a-e); a
# promotable piece entering the zone has a promote and a decline move, except a lance reaching
# rank a, which must promote (section 5). Options at their documented defaults (section 10).
"""

TAI_HEADER = """\
# Tai solo-piece counts (distinct convention), one line per piece kind (93 in the start array +
# 8 that only arise by promotion = 101). Derived BY HAND from shared/rules/tai.md (Table A/B
# "Move (default ruleset)" and section 2.3) by tests/data/solo/derive.py -- a direction table
# transcribed from the rules text; independent of shogilab's generator and of
# configs/variants/tai.toml (used only for token spelling). Regenerate:
#   python3 tests/data/solo/derive.py --write
# Each piece stands alone on 13m (the centre, 12 squares on every side), Black to move. No
# promotion zone (promotion only by capture). Pass-capable pieces (lion, lion dog, furious fiend,
# soaring eagle, horned falcon, teaching king, Buddhist spirit) get one pass each.
"""


def main():
    root = Path(__file__).resolve().parents[1] / "perft"
    ten = render("tenjiku", TENJIKU, 16, 16, 8, 8, 5, TENJIKU_HEADER)
    tai = render("tai", TAI, 25, 25, 12, 12, 0, TAI_HEADER)
    assert len(TENJIKU) == 44 and len({p["token"] for p in TENJIKU}) == 44
    assert len(TAI) == 101 and len({p["token"] for p in TAI}) == 101
    if "--write" in sys.argv:
        (root / "tenjiku-solo.perft").write_text(ten)
        (root / "tai-solo.perft").write_text(tai)
    sys.stdout.write(ten + "\n" + tai)


if __name__ == "__main__":
    main()
