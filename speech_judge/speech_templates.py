"""Generated assistant-style English sentences: templates and vocabularies, one set per class.

The sentences speech_judge/speech_diff.py gives both normalizers. Written from how chat assistants
phrase answers (support replies, bookings, recipes, code help, finance, health, study), not
from either normalizer's rules. Every class of tests/container/data/en_assistant_corpus.tsv
that a text normalizer judges is here (heteronym, markdown, emoji and control are not).

A template is a sentence with `{slot}` holes; each hole is drawn from SLOTS on its own (two
`{h12}` in one template are two different hours). Generation is seeded per class, so adding
a template to one class leaves the others' sentences as they were.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Slot = Callable[[random.Random], str]


def one_of(*options: str) -> Slot:
    return lambda rng: rng.choice(options)


def choices(options: str) -> Slot:
    """One of the options written "a | b | c" (so a vocabulary fits on a few lines)."""
    return one_of(*(option.strip() for option in options.split(" | ")))


def joined(*parts: Slot, sep: str = " ") -> Slot:
    return lambda rng: sep.join(part(rng) for part in parts)


def integer(lo: int, hi: int, commas: bool = False) -> Slot:
    return lambda rng: f"{rng.randint(lo, hi):,}" if commas else str(rng.randint(lo, hi))


def decimal(lo: float, hi: float, places: int) -> Slot:
    return lambda rng: f"{rng.uniform(lo, hi):.{places}f}"


def digit_string(n: int) -> Slot:
    return lambda rng: "".join(rng.choice("0123456789") for _ in range(n))


def either(*slots: Slot) -> Slot:
    return lambda rng: rng.choice(slots)(rng)


# ---- times -------------------------------------------------------------------------------

AM = ("a.m.", "a.m", "am", "AM", "A.M.", "a. m.")
PM = ("p.m.", "p.m", "pm", "PM", "P.M.", "p. m.")
_MINUTES = ("00", "05", "10", "15", "20", "30", "40", "45", "50", "55")


def _clock(suffixes: Sequence[str]) -> Slot:
    def make(rng: random.Random) -> str:
        hour = rng.randint(1, 12)
        minutes = ""
        if rng.random() < 0.55:
            minutes = ":" + (
                rng.choice(_MINUTES) if rng.random() < 0.7 else f"{rng.randint(1, 59):02d}"
            )
        suffix = rng.choice(suffixes)
        space = "" if suffix in ("am", "pm", "AM", "PM") and rng.random() < 0.5 else " "
        return f"{hour}{minutes}{space}{suffix}"

    return make


def _clock24(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.choice((*_MINUTES, '07', '42', '58'))}"


def _hour_span(rng: random.Random) -> str:
    start, end = rng.randint(6, 11), rng.randint(1, 9)
    a, p = rng.choice(AM), rng.choice(PM)
    dash = rng.choice(("–", "-", " – ", " to "))
    shape = rng.random()
    if shape < 0.45:
        return f"{start} {a}{dash}{end} {p}"
    if shape < 0.7:
        return f"{start}{rng.choice(('am', 'AM'))}{dash}{end}{rng.choice(('pm', 'PM'))}"
    if shape < 0.85:
        return f"{start}:00 {a}{dash}{end}:30 {p}"
    return f"{start}{dash}{end} {p}"


# ---- calendar ----------------------------------------------------------------------------

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAY_ABBR = ("Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Sun")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec")


def ascending(lo: int, hi: int, dashes: Sequence[str] = ("–", "-")) -> Slot:
    def make(rng: random.Random) -> str:
        a, b = sorted(rng.sample(range(lo, hi + 1), 2))
        return f"{a}{rng.choice(dashes)}{b}"

    return make


def _dotted(options: Sequence[str], p: float = 0.5) -> Slot:
    return lambda rng: rng.choice(options) + ("." if rng.random() < p else "")


def _weekday_span(rng: random.Random) -> str:
    first, last = sorted(rng.sample(range(7), 2))
    dot = "." if rng.random() < 0.35 else ""
    names = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    return f"{names[first]}{dot}{rng.choice(('–', '-'))}{names[last]}{dot}"


def _month_span(rng: random.Random) -> str:
    names = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    first, last = sorted(rng.sample(range(len(names)), 2))
    dot = "." if rng.random() < 0.5 else ""
    return f"{names[first]}{dot}{rng.choice(('–', '-'))}{names[last]}{dot}"


def _slash_date(rng: random.Random) -> str:
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    shape = rng.random()
    if shape < 0.35:
        return f"{month}/{day}"
    if shape < 0.65:
        return f"{month}/{day}/{rng.randint(2019, 2027)}"
    if shape < 0.85:
        return f"{month:02d}/{day:02d}/{rng.randint(19, 27)}"
    return f"{month:02d}/{rng.randint(2024, 2030)}"


def _year(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return rng.choice(("1066", "1492", "1776", "1865", "1905", "1969", "2000", "2001", "2008"))
    return str(rng.randint(1850, 2035))


def _decade(rng: random.Random) -> str:
    decade = rng.choice(range(1920, 2030, 10))
    shape = rng.random()
    if shape < 0.6:
        return f"{decade}s"
    if shape < 0.8:
        return f"'{decade % 100:02d}s"
    return f"{decade % 100:02d}s"


def _season(rng: random.Random) -> str:
    start = rng.randint(1995, 2025)
    return f"{start}{rng.choice(('–', '-', '/'))}{(start + 1) % 100:02d}"


# ---- money -------------------------------------------------------------------------------


def _dollars(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.3:
        return f"${rng.randint(1, 99)}"
    if shape < 0.6:
        return f"${rng.randint(1, 499)}.{rng.choice(('99', '95', '50', '49', '25', '05', '00'))}"
    if shape < 0.8:
        return f"${rng.randint(1000, 99999):,}"
    return f"${rng.randint(1000, 9999):,}.{rng.randint(0, 99):02d}"


def _suffixed(symbol: str) -> Slot:
    def make(rng: random.Random) -> str:
        whole = rng.randint(1, 950)
        if rng.random() < 0.3:
            whole_text = f"{rng.randint(1, 9)}.{rng.randint(1, 9)}"
        else:
            whole_text = str(whole)
        return f"{symbol}{whole_text}{rng.choice(('k', 'K', 'M', 'B', 'bn', 'm'))}"

    return make


def _money_span(rng: random.Random) -> str:
    low = rng.randint(1, 9)
    high = low + rng.randint(1, 5)
    suffix = rng.choice(("k", "K", "M", ""))
    dash = rng.choice(("–", "-"))
    symbol = rng.choice(("$", "$", "€", "£"))
    if rng.random() < 0.5:
        return f"{symbol}{low}{suffix}{dash}{symbol}{high}{suffix}"
    return f"{symbol}{low}{dash}{high}{suffix}"


def _other_money(rng: random.Random) -> str:
    amount = rng.randint(2, 900)
    cents = f".{rng.randint(0, 99):02d}" if rng.random() < 0.3 else ""
    return rng.choice(
        (
            f"€{amount}{cents}",
            f"£{amount}{cents}",
            f"¥{amount * 100:,}",
            f"₹{amount * 10:,}",
            f"{amount} USD",
            f"USD {amount}",
            f"{amount}{cents} EUR",
            f"CHF {amount}",
            f"A${amount}",
            f"C${amount}",
            f"{amount}¢",
        )
    )


# ---- codes and numbers read digit by digit ----------------------------------------------------


def _order(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    shape = rng.random()
    if shape < 0.4:
        return "#" + str(rng.randint(10000, 99999999))
    if shape < 0.7:
        return "#" + rng.choice(letters) + str(rng.randint(100, 99999))
    if shape < 0.85:
        return "#" + rng.choice(letters) + rng.choice(letters) + "-" + str(rng.randint(1000, 9999))
    return rng.choice(letters) + str(rng.randint(1, 9)) + "-" + str(rng.randint(100, 999))


def _phone(rng: random.Random) -> str:
    area, mid, last = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
    return rng.choice(
        (
            f"({area}) {mid}-{last:04d}",
            f"{area}-{mid}-{last:04d}",
            f"1-800-{mid}-{last:04d}",
            f"+1 {area} {mid} {last:04d}",
            f"{area}.{mid}.{last:04d}",
        )
    )


def _ext(rng: random.Random) -> str:
    n = rng.randint(100, 9999)
    return rng.choice((f"ext. {n}", f"ext {n}", f"x{n}", f"extension {n}", f"Ext. {n}"))


def _gate(rng: random.Random) -> str:
    return rng.choice("ABCDEF") + str(rng.randint(1, 48))


# ---- units -------------------------------------------------------------------------------

UNIT_AMOUNTS = (
    "1", "2", "3", "5", "6", "8", "10", "12", "16", "20", "24", "32", "50", "100", "250",
    "1.5", "2.5", "0.5", "3.2", "12.5",
)  # fmt: skip
LENGTH = ("ft", "ft.", "in", "in.", "cm", "mm", "m", "km", "mi", "mi.", "yd", "yd.")
WEIGHT = ("lb", "lbs", "lb.", "lbs.", "oz", "oz.", "kg", "g", "mg")
VOLUME = (
    "mL", "ml", "L", "fl oz", "fl. oz.", "gal", "gal.", "qt", "qt.", "tbsp", "tbsp.", "tsp",
    "tsp.",
)  # fmt: skip
DATA = ("KB", "MB", "GB", "TB", "Mbps", "Gbps", "MB/s", "GHz", "MHz")
OTHER_UNITS = (
    "mph", "km/h", "kph", "ms", "sec", "min", "hrs", "kW", "kWh", "W", "V", "mAh", "psi", "dB",
    "Hz", "rpm",
)  # fmt: skip


def _temperature(rng: random.Random) -> str:
    degrees = rng.choice((325, 350, 375, 400, 425, 450, 180, 200, 220, 160, 72, 68, 98.6, -4, 37))
    return f"{degrees}{rng.choice(('°F', '°C', ' °F', ' °C', '°', ' degrees F'))}"


def _height(rng: random.Random) -> str:
    return f"{rng.randint(4, 6)}'{rng.randint(0, 11)}\""


def _area(rng: random.Random) -> str:
    n = rng.choice(("25", "40", "120", "1,500", "2,200", "3.5", "800"))
    return f"{n} {rng.choice(('m²', 'sq ft', 'sq. ft.', 'ft²', 'km²', 'sq m', 'm2'))}"


def _bps(rng: random.Random) -> str:
    n = rng.choice((5, 10, 15, 25, 50, 75, 100, 125, 150, 200))
    return f"{n}{rng.choice((' bps', ' bp', 'bps', 'bp', ' basis points'))}"


# ---- math, code and science ----------------------------------------------------------------

SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _scientific(rng: random.Random) -> str:
    mantissa = rng.choice(("1.5", "2", "3", "6.02", "9.81", "1.6", "4.2", "7"))
    power = rng.choice((3, 6, 8, 9, 12, 23, -3, -6, -9, -19))
    shape = rng.random()
    if shape < 0.3:
        return f"{mantissa}e{power}"
    if shape < 0.45:
        return f"{mantissa}E{power:+d}"
    if shape < 0.65:
        return f"{mantissa}×10^{power}"
    if shape < 0.8:
        return f"{mantissa} × 10{str(power).translate(SUPERSCRIPT)}"
    return f"10{str(power).translate(SUPERSCRIPT)}"


def _power(rng: random.Random) -> str:
    base = rng.choice(("x", "n", "2", "10", "a", "e"))
    power = rng.choice(("2", "3", "10", "n", "-1", "k"))
    if power.lstrip("-").isdigit() and rng.random() < 0.5:
        return base + power.translate(SUPERSCRIPT)
    return f"{base}^{power}"


# ---- versions, URLs ------------------------------------------------------------------------


def _semver(rng: random.Random) -> str:
    shape = rng.random()
    major = rng.randint(0, 24)
    if shape < 0.4:
        return f"{major}.{rng.randint(0, 20)}"
    if shape < 0.8:
        return f"{major}.{rng.randint(0, 20)}.{rng.randint(0, 15)}"
    tag = rng.choice(("beta", "rc1", "alpha.2", "beta.3"))
    return f"{major}.{rng.randint(0, 9)}.{rng.randint(0, 9)}-{tag}"


_SITE = choices(
    "example | acme | mybank | docs.python | support.apple | github | shop.contoso"
    " | help.zendesk | news.ycombinator"
)
_PATH = choices(
    "/login | /docs/install | /en/latest/ | /api/v2/users | /help/returns"
    " | /settings/billing | /3/library/asyncio.html"
)
_USER = choices(
    "support | help | jane.doe | billing | no-reply | alex_smith | team | info | j.nguyen42"
)


def _domain(rng: random.Random) -> str:
    name = _SITE(rng)
    return f"{name}.{rng.choice(('com', 'org', 'io', 'dev', 'co.uk', 'net'))}"


def _url(rng: random.Random) -> str:
    path = "" if rng.random() < 0.3 else _PATH(rng)
    scheme = rng.choice(("https://", "https://www.", "http://", "", "www."))
    return f"{scheme}{_domain(rng)}{path}"


def _email(rng: random.Random) -> str:
    user = _USER(rng)
    return f"{user}@{_domain(rng)}"


def _local(rng: random.Random) -> str:
    port = rng.choice(("3000", "8000", "8080", "5173", "5432", "6379", "9090", "4200"))
    return rng.choice(
        (
            f"localhost:{port}",
            f"http://localhost:{port}",
            f"127.0.0.1:{port}",
            f"http://127.0.0.1:{port}/health",
        )
    )


def _ip(rng: random.Random) -> str:
    return rng.choice(
        ("192.168.1.1", "192.168.0.10", "10.0.0.5", "8.8.8.8", "172.16.4.20", "1.1.1.1")
    )


# ---- the vocabularies -------------------------------------------------------------------------

SLOTS: dict[str, Slot] = {
    # times
    "t12": _clock(AM + PM),
    "am": _clock(AM),
    "pm": _clock(PM),
    "ams": one_of(*AM),
    "pms": one_of(*PM),
    "amtight": choices("am | AM | a.m."),
    "pmtight": choices("pm | PM | p.m."),
    "t24": _clock24,
    "hours": _hour_span,
    "h12": integer(1, 12),
    "tz": choices("ET | PT | CT | EST | PST | UTC | GMT | CET | Eastern | Pacific"),
    # calendar
    "weekday": one_of(*WEEKDAYS),
    "wkabbr": _dotted(WEEKDAY_ABBR),
    "wkspan": _weekday_span,
    "month": one_of(*MONTHS),
    "monabbr": _dotted(MONTH_ABBR, 0.7),
    "monspan": _month_span,
    "day": integer(1, 28),
    "sdate": _slash_date,
    "md": lambda rng: f"{rng.randint(1, 12)}/{rng.randint(1, 28)}",
    "mdy": lambda rng: f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2020, 2027)}",
    "year": _year,
    "ryear": integer(1990, 2029),
    "oldyear": integer(1100, 1899),
    "decade": _decade,
    "season": _season,
    "bc": lambda rng: str(rng.choice((44, 323, 490, 753, 1200, 3000, 2560, 79))),
    "yy": lambda rng: f"{rng.choice((85, 90, 94, 98, 99, 1, 5, 8, 12, 20)):02d}",
    # plain numbers
    "n1": integer(2, 12),
    "n2": integer(13, 99),
    "n3": integer(100, 999),
    "n4": integer(1001, 9999),
    "ncomma": integer(1000, 999999, commas=True),
    "nbig": integer(1000000, 99999999, commas=True),
    "dec": either(decimal(0, 10, 1), decimal(0, 100, 2), decimal(0, 1, 3)),
    "pct": either(lambda rng: f"{rng.randint(1, 99)}%", lambda rng: f"{rng.uniform(0, 30):.1f}%"),
    "span1": ascending(1, 12),
    "span2": ascending(10, 99),
    "pages": ascending(1, 400),
    "dspan": ascending(1, 28),
    "yspan": ascending(1990, 2030),
    "century": lambda rng: _ordinal(rng.randint(1, 21)),
    "rank": lambda rng: _ordinal(rng.randint(2, 10)),
    "ghz": decimal(1.2, 5.8, 1),
    "osver": integer(8, 18),
    "neg": lambda rng: rng.choice(("-", "−")) + str(rng.randint(1, 40)),
    "mult": lambda rng: (
        rng.choice(("1.2", "3", "4.5", "12", "250", "2.7"))
        + " "
        + rng.choice(("million", "billion", "thousand", "trillion"))
    ),
    "ordinal": lambda rng: _ordinal(rng.choice((rng.randint(1, 31), rng.randint(32, 120)))),
    "dayord": lambda rng: _ordinal(rng.randint(1, 31)),
    "smallord": lambda rng: _ordinal(rng.randint(1, 12)),
    # money
    "usd": _dollars,
    "usdk": _suffixed("$"),
    "eurk": _suffixed("€"),
    "money": _other_money,
    "mspan": _money_span,
    # codes
    "order": _order,
    "zip": digit_string(5),
    "pin": digit_string(4),
    "case": lambda rng: str(rng.randint(10000000, 99999999)),
    "phone": _phone,
    "ext": _ext,
    "port": choices("22 | 80 | 443 | 3000 | 5432 | 6379 | 8080 | 8443 | 27017 | 5000"),
    "http": choices("200 | 201 | 301 | 400 | 401 | 403 | 404 | 429 | 500 | 502 | 503"),
    "flight": lambda rng: (
        rng.choice(("UA", "DL", "AA", "BA", "LH", "WN"))
        + rng.choice(("", " "))
        + str(rng.randint(12, 2999))
    ),
    "gate": _gate,
    "seat": lambda rng: f"{rng.randint(1, 45)}{rng.choice('ABCDEF')}",
    "room": lambda rng: str(rng.randint(101, 1299)) + rng.choice(("", "", "A", "B")),
    "emerg": choices("911 | 112 | 999 | 988 | 000 | 311 | 211"),
    "last4": digit_string(4),
    # fractions
    "frac": choices("1/2 | 1/3 | 2/3 | 1/4 | 3/4 | 1/8 | 3/8 | 5/8 | 7/8 | 1/16 | 5/16"),
    "split": choices("50/50 | 60/40 | 70/30 | 80/20 | 90/10"),
    "vfrac": choices("½ | ¼ | ¾ | ⅓ | ⅔ | ⅛"),
    "mixed": lambda rng: f"{rng.randint(1, 4)} {rng.choice(('1/2', '1/3', '1/4', '3/4', '2/3'))}",
    # units
    "amt": one_of(*UNIT_AMOUNTS),
    "len": one_of(*LENGTH),
    "wt": one_of(*WEIGHT),
    "vol": one_of(*VOLUME),
    "data": one_of(*DATA),
    "ounit": one_of(*OTHER_UNITS),
    "temp": _temperature,
    "height": _height,
    "area": _area,
    "bps": _bps,
    # math and code
    "sci": _scientific,
    "pow": _power,
    "var": choices("x | y | n | i | count | total | a | b | k"),
    "cmp": choices("> | < | >= | <= | ≥ | ≤ | ≠ | != | == | ="),
    "op": one_of("!=", "==", "&&", "||", "->", "=>", "+=", "===", "<=", ">=", "**"),
    # versions and the web
    "semver": _semver,
    "product": choices(
        "Python | Node | Node.js | Django | React | Java | Go | Rust | Ubuntu"
        " | PostgreSQL | Kubernetes | TypeScript | Angular | Ruby | PHP | Xcode"
        " | Unity"
    ),
    "os": choices("iOS | Android | macOS | Windows | watchOS | Chrome | Firefox | Safari"),
    "url": _url,
    "domain": _domain,
    "email": _email,
    "local": _local,
    "ip": _ip,
    # roman numerals
    "king": joined(
        choices(
            "Henry | Louis | Charles | Elizabeth | George | Edward | Richard | William"
            " | James | Pope Pius | Pope John Paul | Napoleon | Ramesses"
        ),
        choices("I | II | III | IV | V | VI | VII | VIII | IX | XIV | XVI"),
    ),
    "part": choices(
        "Part | Chapter | Book | Volume | Act | Phase | Section | Appendix | Stage | Level | Title"
    ),
    "roman": choices("II | III | IV | V | VI | VII | VIII | IX | X | XI | XII | XIV | XIX | XX"),
    "sequel": choices(
        "Rocky IV | Final Fantasy VII | Star Wars: Episode IV"
        " | Grand Theft Auto V | Civilization VI | Super Bowl LVIII"
        " | Super Bowl LIX | Apollo XI | Halo III | Mission: Impossible II"
    ),
    # people, places, things
    "name": choices(
        "Smith | Patel | Nguyen | Garcia | Chen | Johnson | Okafor | Kim"
        " | Lopez | Rossi | Williams | Brown | Cohen | Martin | Singh"
    ),
    "first": choices(
        "Maria | James | Priya | Daniel | Aisha | Tom | Elena | Kevin | Sofia"
        " | Omar | Grace | Lucas"
    ),
    "city": choices(
        "Chicago | Denver | Austin | Boston | Seattle | Portland | Miami"
        " | Atlanta | Phoenix | Nashville | Toronto | London | Berlin | Tokyo"
    ),
    "street": choices(
        "Main | Oak | Maple | Elm | Pine | Market | Broadway | Lincoln"
        " | Washington | Park | Mission | Cedar"
    ),
    "saint": choices(
        "Louis | Paul | Patrick | Augustine | Petersburg | Lucia | Andrews | Mark | Kitts"
    ),
    "dish": choices(
        "the sauce | the dough | the batter | the soup | the chili | the brine"
        " | the marinade | the glaze | the custard | the stew"
    ),
    "item": choices(
        "the charger | your order | the package | the replacement part"
        " | the refund | the invoice | the laptop | the router | your ticket"
        " | the prescription"
    ),
    "topic": choices(
        "the budget | your resume | the migration | the onboarding plan"
        " | the itinerary | the API design | the workout plan"
        " | the study schedule | the lease | the proposal"
    ),
    "task": choices(
        "restart the router | clear the cache | update the app"
        " | reset your password | check the logs | rerun the tests"
        " | back up your files | sign out and back in | reinstall the driver"
        " | check your spam folder"
    ),
    "noun": choices(
        "users | requests | steps | calories | pages | employees | tokens"
        " | rows | downloads | reviews | participants | miles | votes | samples"
        " | files"
    ),
    "thing": choices(
        "a quick summary | a few options | a short checklist | the main points"
        " | a simple example | two alternatives | a rough outline"
        " | some background | a step-by-step plan | a comparison"
    ),
    "adj": choices(
        "good | simple | reliable | common | safe | quick | useful | reasonable | solid | practical"
    ),
    "verb": choices(
        "check | compare | review | confirm | update | measure | adjust | test"
        " | track | double-check"
    ),
}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ---- the templates ----------------------------------------------------------------------------

TEMPLATES: dict[str, tuple[str, ...]] = {
    "abbreviation": (
        "The price is ${n2} per night, incl. taxes and fees.",
        "The total comes to {usd}, incl. shipping.",
        "Your class meets in Rm. {room} on the second floor.",
        "The workshop is in Rm. {room}, just past the elevators.",
        "It takes approx. {n1} minutes to preheat.",
        "The drive is approx. {n2} miles each way.",
        "The est. delivery date is {weekday}, {month} {day}.",
        "The project was est. {ryear} and now has {n3} contributors.",
        "Contact the billing dept. if the charge looks wrong.",
        "Send the form to the HR dept. by Friday.",
        "Let the dough rest for {n2} min. before shaping it.",
        "Use a max. of {n1} cups of flour.",
        "The min. order is {n2} units, and the max. is {n3}.",
        "The avg. response time is {n2} ms.",
        "Our avg. rating this year is {dec} stars.",
        "Dr. {name} will see you at {h12} o'clock.",
        "I'd ask Dr. {name} about the dosage before changing it.",
        "The clinic is at {n3} {street} Dr., next to the pharmacy.",
        "Mr. {name} and Mrs. {name} have both confirmed.",
        "Please address the letter to Ms. {name}.",
        "Prof. {name} teaches the intro course on {weekday}s.",
        "The office is at {n3} {street} St., Suite {n3}.",
        "The parade goes down {street} Ave. at noon.",
        "Turn left on {street} Blvd. and look for the blue sign.",
        "St. {saint} is about a four-hour drive from here.",
        "We climbed Mt. {saint} last summer.",
        "It's a classic case of quality vs. speed.",
        "Bring snacks, water, sunscreen, etc.",
        "Some fruits, e.g. apples and pears, keep well in the fridge.",
        "Use a neutral oil, i.e. one with a high smoke point.",
        "See Fig. {n1} for the wiring diagram.",
        "It's listed as item No. {n2} in the catalog.",
        "The contract is between Acme Inc. and Globex Ltd.",
        "The firm is Baker & Sons Co. in {city}.",
        "Martin Luther King Jr. gave the speech in {year}.",
        "The quote is on p. {n3} of the report.",
        "The relevant section is on pp. {n2}–{n3}.",
        "The deadline is {monabbr} {day}, so there's still time.",
        "The sale runs through {monabbr} {day}.",
        "The clinic is closed on {wkabbr} and holidays.",
        "Pickup is available {wkabbr} and {wkabbr} only.",
        "The U.S. and the U.K. use different date formats.",
        "Prince, a.k.a. the Artist, released it in {year}.",
        "Ship it to Apt. {room}, {n3} {street} St.",
        "Mail it to Ste. {n3}, {n4} {street} Ave.",
        "The shelf is {n1} ft. wide and {n2} in. deep.",
        "The hose is {n2} ft. long, which should reach the garden.",
        "Call the front desk, ext. {n3}, for late checkout.",
        "The {n2} yr. warranty covers parts and labor.",
        "The plan costs {usd}/mo. after the trial.",
        "Vol. {n1} of the series comes out next spring.",
        "Gov. {name} signed the bill on {weekday}.",
        "Sen. {name} and Rep. {name} both voted yes.",
        "Capt. {name} will make an announcement shortly.",
        "Gen. {name} led the campaign in {year}.",
        "Lt. {name} is the duty officer tonight.",
        "The tour runs approx. {n1} hrs., incl. a lunch break.",
        "The avg. temp. in {month} is about {n2} degrees.",
        "Please reply ASAP so we can hold the room.",
        "Check the FAQ before you open a ticket.",
        "Attn. {first} {name}: your package has arrived.",
        "Qty. {n1} of the blue mugs, please.",
        "Misc. expenses came to {usd} last month.",
        "Dept. heads meet every {weekday} morning.",
        "Pres. Lincoln delivered the address in {oldyear}.",
        "The course is taught by Assoc. Prof. {name}.",
    ),
    "cardinal": (
        "We have {ncomma} {noun} signed up so far.",
        "The model was trained on {nbig} {noun}.",
        "That's {n3} {noun} in the last hour.",
        "About {n4} {noun} took part in the survey.",
        "The context window is {n4} tokens.",
        "There are {n2} {noun} left in the queue.",
        "The stadium holds {ncomma} people.",
        "Your account has {n1} active sessions.",
        "The average is {dec}, with a spread of {dec}.",
        "Conversion rose by {pct} last quarter.",
        "The interest rate is {pct} for the first year.",
        "About {pct} of respondents said yes.",
        "The temperature dropped to {neg} overnight.",
        "The balance shows {neg} after the refund.",
        "The city has {mult} residents.",
        "The video has {mult} views.",
        "Roughly {ncomma} {noun} were affected.",
        "Each batch holds {n3} {noun}.",
        "I found {n2} results that match.",
        "It weighs {dec} times as much as the original.",
        "Set the limit to {n4} and try again.",
        "The page loads {n2} {noun} at a time.",
        "There were {ncomma} votes for and {ncomma} against.",
        "The repository has {n4} stars and {n3} forks.",
        "A score of {n2} out of {n3} is a pass.",
        "Only {n1} of the {n2} tests failed.",
        "The array has {n4} elements.",
        "Multiply {n2} by {n1} to get the total.",
        "The survey had {n3} questions and took {n2} minutes.",
        "The file has {ncomma} lines.",
    ),
    "currency": (
        "The monthly plan is {usd}, and the annual one is {usd}.",
        "Your refund of {usd} should post within {n1} business days.",
        "That comes to {usd} after the discount.",
        "The budget for this is around {usdk}.",
        "The startup raised {usdk} in its latest round.",
        "Salaries for this role are about {mspan}.",
        "Expect to pay {mspan} for a used one.",
        "A junior developer there earns {mspan} a year.",
        "Tickets cost {money} each.",
        "The hotel charges {money} per night.",
        "The fee is {money}, paid at the counter.",
        "The company reported {eurk} in revenue.",
        "A coffee there is about {money}.",
        "It's {usd} per month, billed annually.",
        "You'll save {usd} by switching plans.",
        "The fine can be as high as {usd}.",
        "Your card was charged {usd} on {weekday}.",
        "Prices start at {usd} for the base model.",
        "The repair estimate is {usd}, parts included.",
        "The deal is worth {usdk} over five years.",
        "I'd set aside {usd} for groceries each week.",
        "The stock closed at {usd}, down {pct}.",
        "Rent went from {usd} to {usd} this year.",
        "The gift card balance is {usd}.",
        "A round trip is {money}, or {money} if you book early.",
        "The grant covers up to {usdk}.",
        "The exchange rate today is {money} to the dollar.",
        "Shipping is free on orders over {usd}.",
        "The late fee is {usd} per day.",
        "The valuation jumped to {usdk} after the deal.",
    ),
    "digits": (
        "Your order number is {order}.",
        "I've opened ticket {order} for you.",
        "Please quote case number {case} when you call.",
        "Order {order} shipped this morning.",
        "The tracking number ends in {last4}.",
        "Your ZIP code is {zip}, right?",
        "The office is in ZIP code {zip}.",
        "Call {emerg} right away if the symptoms get worse.",
        "In an emergency, dial {emerg}.",
        "You can reach support at {phone}.",
        "Call us at {phone}, {ext}.",
        "Ask for {first} at {ext}.",
        "The line is {phone} and it's open around the clock.",
        "Your flight, {flight}, boards from gate {gate}.",
        "Flight {flight} is delayed by {n2} minutes.",
        "Enter your PIN, {pin}, to confirm.",
        "The default PIN is {pin}, so change it now.",
        "The server listens on port {port}.",
        "Open port {port} in the firewall.",
        "Make sure nothing else is using port {port}.",
        "The request failed with HTTP {http}.",
        "A {http} error means the request was refused.",
        "The API returned status {http}.",
        "The card ending in {last4} was declined.",
        "Your confirmation code is {order}.",
        "Head to room {room} on the {smallord} floor.",
        "The part number is {order}, and it fits both models.",
        "Use promo code SAVE{n2} at checkout.",
        "Your seat is {seat}.",
        "Model {order} is the newer one.",
        "Table {n2} is ready for you.",
        "Press {n1} to speak to an agent.",
    ),
    "fraction": (
        "Add {frac} cup of sugar and stir.",
        "Use {frac} teaspoon of salt.",
        "You'll need {mixed} cups of flour.",
        "Stir in {vfrac} cup of milk.",
        "About {frac} of the users never log in.",
        "Roughly {frac} of the budget goes to rent.",
        "Cut the board to {mixed} inches.",
        "Drill a {frac}-inch hole.",
        "The recipe calls for {vfrac} teaspoon of vanilla.",
        "Bake for {mixed} hours at low heat.",
        "Fill the pot {frac} of the way.",
        "Only {frac} of the seats are left.",
        "Give it a {frac} turn to the right.",
        "A {frac} mile loop is a good start.",
        "Mix {frac} cup of oil with {frac} cup of vinegar.",
        "The bolt is {frac} inch long.",
        "Each serving is {vfrac} of the pie.",
        "Halve it to get {frac} of the original amount.",
        "It's a {split} split between the teams.",
        "The odds are {n1}/1, not great.",
        "It needs a {frac} majority to pass.",
        "Reduce the liquid by {frac}.",
    ),
    "math": (
        "If {var} {cmp} {n2}, the loop stops.",
        "Check that {var} {cmp} {n1} before dividing.",
        "The condition is {var} {op} {n2}.",
        "In Python, use {op} here.",
        "Replace {op} with {op} and the bug goes away.",
        "The line if a != b && c == d reads oddly.",
        "Return early when count == 0 || items.length < 2.",
        "In Rust, fn parse(s: &str) -> u32 reads the number.",
        "Write x => x * 2 to double each value.",
        "Light travels at about {sci} meters per second.",
        "The sample had a concentration of {sci} moles per liter.",
        "A tolerance of {sci} is usually enough.",
        "That's roughly {sci} operations.",
        "The answer is {pow}.",
        "The area grows with {pow}.",
        "Remember that {pow} grows quickly.",
        "So {n1} × {n1} = {n2}.",
        "Then {n3} ÷ {n1} is about {dec}.",
        "The result is {dec} ± {dec}.",
        "The value is ≈ {dec}.",
        "Pi is ≈ 3.14159.",
        "We get {n1} + {n1} = {n2}.",
        "Subtract: {n2} − {n1} = {n2}.",
        "The ratio is {n1}:{n1}.",
        "The screen is 16:9.",
        "The algorithm runs in O(n log n) time.",
        "Lookups are O(1) on average.",
        "Take √{n2} and round it.",
        "The formula is E = mc².",
        "f(x) = {n1}x + {n1} is a straight line.",
        "Set y = {n1}x² + {n1}.",
        "Use x += 1 inside the loop.",
        "The growth rate is {n1}% per year, so double it is {n2}%.",
        "The error is less than {sci}.",
        "If a ≥ b and b ≥ c, then a ≥ c.",
        "Make sure n ≤ {n3}.",
        "Two values with x ≠ y fail the check.",
        "The mean is {dec} and σ = {dec}.",
    ),
    "mixed": (
        "Dr. {name}'s office on {street} Ave. opens at {am} on {weekday}s.",
        "On {md} at {pm}, the price drops to {usd}.",
        "Order {order} ({n1} items, {usd}) ships {monabbr} {day}.",
        "From {sdate}, the fee rises {pct} to {usd}.",
        "The {n2} ft. trail gains {ncomma} ft. and takes approx. {n1} hrs.",
        "Your {pm} call with Prof. {name} is on {md}.",
        "Preheat to {temp}, then bake {mixed} hours, approx.",
        "Python {semver} was released on {mdy} with {n3} fixes.",
        "Call {phone} between {hours}, {wkspan}.",
        "The {ordinal} annual meetup is {wkabbr}, {monabbr} {day}, at {pm} in Rm. {room}.",
        "Plans cost {usd}/mo. or {usdk}/yr. for teams of {n2}+.",
        "In {year}, about {pct} of the {ncomma} {noun} used v{semver}.",
        "The {n1} GB file downloads in {n2} sec. at {n3} Mbps.",
        "Mix {frac} cup oil, {n1} tbsp. vinegar and {vfrac} tsp. salt.",
        "Check {url} before {pm} {tz} on {md}.",
        "Flight {flight} leaves gate {gate} at {t24} on {md}.",
        "Email {email} by {monabbr} {day} with ref. {order}.",
        "Henry VIII married {n1} times between {oldyear} and {oldyear}.",
        "It's {temp} in {city}, and winds are {n2} mph.",
        "{n2}% of the {mspan} budget went to Dept. {n1}.",
        "Meet at {n3} {street} St., Apt. {room}, at {am}.",
        "The {n2} oz. bottle costs {usd}, about {n2}¢ per oz.",
        "From {yspan}, rates rose {bps}.",
        "Run it on port {port} and open {local} at {pm}.",
    ),
    "ordinal": (
        "Your appointment is on the {dayord}.",
        "The office is on the {smallord} floor.",
        "We finished {ordinal} out of {n3} teams.",
        "It's our {ordinal} anniversary this year.",
        "The {century} century saw huge changes.",
        "{month} {dayord} works best for me.",
        "The package should arrive by {month} {dayord}.",
        "The meeting moved to the {dayord} of {month}.",
        "Take the {smallord} exit and keep right.",
        "This is the {ordinal} time I've seen this bug.",
        "She came in {smallord} in the final.",
        "Their shop is on {ordinal} Street.",
        "Walk two blocks to {ordinal} Avenue.",
        "Use a {smallord}-party tool if you need more.",
        "The {smallord} edition fixed most of the typos.",
        "It's the {rank} largest city in the country.",
        "Turn to the {smallord} chapter for the proof.",
        "Your {smallord} payment is due next week.",
        "He's in {smallord} grade now.",
        "Rent is due on the {dayord} of every month.",
    ),
    "plain": (
        "Sure, here's {thing} of {topic}.",
        "I can help with that.",
        "A {adj} first step is to {task}.",
        "A {adj} way to start is to {verb} {topic}.",
        "I'd {verb} {topic} before you commit to anything.",
        "If that doesn't work, try to {task}.",
        "Let me know if you'd like {thing}.",
        "Here's {thing} to get you started.",
        "That's a {adj} question, and the answer depends on {topic}.",
        "I think the {adj} option is to wait a day.",
        "You might also {verb} {item} once more.",
        "Good news: {item} is on its way.",
        "Unfortunately, {item} hasn't shipped yet.",
        "I'm sorry about the trouble with {item}.",
        "Could you {verb} {item} and tell me what you see?",
        "It looks like {item} needs another look.",
        "A quick tip: {task} first.",
        "In short, it's {adj} enough for most people.",
        "I hope this helps, and good luck with {topic}!",
        "Feel free to ask if anything is unclear.",
        "I'll walk you through it one step at a time.",
        "Once you {task}, the error should go away.",
        "A lot of people find it easier to {task} first.",
        "I'd recommend you {verb} {topic} with a friend.",
        "That said, {topic} is worth a second look.",
        "I don't have access to your account, but I can explain the steps.",
        "Would you like me to {verb} {topic} for you?",
        "A good rule of thumb is to keep it simple.",
        "I noticed a small problem with {topic}.",
        "Here's what I'd do in your place.",
    ),
    "range": (
        "Most people need {span1} hours of sleep.",
        "Simmer for {span2} minutes.",
        "Read pages {pages} before class.",
        "The course is for ages {span1}.",
        "We're open {wkspan}.",
        "Support is available {wkspan}, {hours}.",
        "The clinic is open {wkspan} and closed on weekends.",
        "Peak season is {monspan}.",
        "The pool is open {monspan} each year.",
        "Registration runs {monspan}.",
        "The final score was {n1}-{n1}.",
        "The bill passed {n2}–{n2}.",
        "It serves K-12 schools in the district.",
        "Aim for {span1} servings a day.",
        "Expect a {span2}% improvement.",
        "The event runs {month} {dspan}.",
        "Temperatures will be {span2} degrees.",
        "Exercise {span1} times a week.",
        "The answer is in chapters {span2}.",
        "Allow {span1} business days for delivery.",
        "Use a {span1} inch gap between the boards.",
        "Plan for {n2} to {n2} guests.",
        "The warranty lasts {span1} years depending on the model.",
        "It's a {span2} minute walk from the station.",
    ),
    "roman": (
        "{king} ruled for decades.",
        "I think {king} is the one you mean.",
        "The portrait shows {king} as a young man.",
        "{part} {roman} covers the history.",
        "Read {part} {roman} before the exam.",
        "The answer is in {part} {roman}.",
        "World War II ended in 1945.",
        "After World War I, the map of Europe changed.",
        "{sequel} is my favorite.",
        "I watched {sequel} last night.",
        "Type II diabetes can often be managed with diet.",
        "The drug is now in Phase III trials.",
        "Queen Elizabeth II reigned for seventy years.",
        "The story takes place after Louis XIV's death.",
        "Chapter {roman} is where the twist happens.",
        "Henry VIII had six wives, and I can list them.",
        "The Title IX rules changed in {ryear}.",
        "Pope Benedict XVI resigned in 2013.",
        "Star Trek II is often called the best film.",
        "Appendix {roman} has the raw data.",
        "A Category IV hurricane is extremely dangerous.",
        "The sonnet's turn comes in line {roman}.",
    ),
    "slash_date": (
        "Your appointment is on {sdate}.",
        "The invoice is due {sdate}.",
        "The sale ends {md}.",
        "I've booked you from {md} to {md}.",
        "The card expires {sdate}.",
        "We received your request on {mdy}.",
        "Mark {md} on your calendar.",
        "The deadline moved from {md} to {md}.",
        "The policy took effect {mdy}.",
        "Classes resume {md} after the break.",
        "Your lease ends on {mdy}.",
        "The last backup ran on {sdate} at {t24}.",
        "Expect delivery between {md} and {md}.",
        "The photo is dated {mdy}.",
        "Please RSVP by {md}.",
        "The firmware from {sdate} fixes that.",
        "My notes from {md} say otherwise.",
        "It was filed on {mdy} and approved on {mdy}.",
    ),
    "symbols": (
        "Salt & pepper to taste.",
        "The Q&A starts right after the talk.",
        "Research & development got a bigger budget.",
        "Follow the tag #{first}Travels for updates.",
        "The song hit #1 in {n1} countries.",
        "It's the #{n1} reason people cancel.",
        "It takes ~{n2} minutes.",
        "Expect ~{n3} visitors a day.",
        "Click File → Save As to keep a copy.",
        "Go to Settings → Privacy → Location.",
        "Acme™ is a registered brand.",
        "The logo reads Globex® on the box.",
        "© {ryear} Acme Corp. All rights reserved.",
        "Under § {n3}, that's not allowed.",
        "I write most of my code in C++ and C#.",
        "The app targets .NET {n1}.",
        "Send it c/o the front desk.",
        "You can pay by card and/or cash.",
        "The help line is open 24/7.",
        "The answer—at least for now—is no.",
        "Well… that depends on the budget.",
        "We're running an A/B test on the button.",
        "Mention @{first} in the channel if it's urgent.",
        "Add the flour + sugar, then mix.",
        "Pizza w/ extra cheese, please.",
        "Coffee w/o sugar is fine.",
        "The score went up {n1} points — nice work.",
        "Use the * wildcard to match any file.",
        "Prices went up {pct} year over year.",
        "Temperature is measured in °C there.",
    ),
    "time": (
        "Your appointment is at {t12}.",
        "The store opens at {am} on {weekday}s.",
        "The meeting was moved to {pm} {tz}.",
        "Check-in starts at {pm} and check-out is by {am}.",
        "I'll set a reminder for {t12}.",
        "The webinar starts at {pm}, so log in early.",
        "Take the first dose at {am} with breakfast.",
        "Doors open at {pm}.",
        "The shuttle leaves at {am} and {pm}.",
        "Quiet hours start at {pm}.",
        "We're open {hours}.",
        "Office hours are {hours} on weekdays.",
        "Call between {h12} {ams} and {h12} {pms}.",
        "Call between {h12}{amtight} and {h12}{pmtight}.",
        "The train leaves at {t24} and arrives at {t24}.",
        "The cron job runs at {t24} UTC.",
        "The backup runs at {t24} every night.",
        "Lunch is from noon to {pm}.",
        "The deadline is {pm} {tz} on {weekday}.",
        "Sunrise is at {am} tomorrow.",
        "Your reservation is for {pm}, party of {n1}.",
        "At {am} the alarm goes off.",
        "It's {t12} in {city} right now.",
        "The livestream starts at {pm} {tz}.",
        "The pharmacy closes at {pm}, so hurry.",
        "Set your alarm for {am} if you want to beat the traffic.",
        "The race starts at {am} sharp.",
        "The last bus is at {pm}.",
    ),
    "unit": (
        "The shelf is {amt} {len} long.",
        "The table is {n1} ft. wide and {n2} in. deep.",
        "The room measures {n2} ft. by {n2} ft.",
        "Buy a few {n2} oz. jars for the jam.",
        "A {n2} oz. bottle lasts about a month.",
        "You'll need {amt} {wt} of flour.",
        "Grab a {n1} lb. bag of rice.",
        "Add {amt} {vol} of water.",
        "Whisk in {n1} tbsp. of butter.",
        "A {n2}-inch skillet works best.",
        "The file is {amt} {data}.",
        "Get at least a {n1} TB drive.",
        "Your plan includes {n3} Mbps download speeds.",
        "The limit on that road is {n2} {ounit}.",
        "Latency dropped to {n2} ms.",
        "The battery is {ncomma} mAh.",
        "Preheat the oven to {temp}.",
        "Bake at {temp} for {n2} minutes.",
        "Keep it below {temp}.",
        "He's {height} and still growing.",
        "The apartment is {area}.",
        "The Fed raised rates by {bps}.",
        "The spread widened {bps} overnight.",
        "The yield fell {bps} after the report.",
        "It runs at {ghz} GHz.",
        "Take {n3} mg twice a day.",
        "Drink {dec} L of water a day.",
        "The trail is {dec} km long.",
        "Gravity is about 9.8 m/s².",
        "Tire pressure should be {n2} psi.",
        "The car gets {n2} mpg on the highway.",
        "A {n1}-gal. tank is enough for a small fish.",
        "Use a {n1} qt. pot for the soup.",
        "The charger puts out {n2} W.",
        "The panel makes about {n2} kWh a month.",
        "The ladder is {n1} ft. tall, so it should reach.",
        "Cut {n1} in. off each end.",
        "The box weighs {dec} kg.",
        "The run was {dec} mi. at an easy pace.",
    ),
    "url_email": (
        "You can find it at {url}.",
        "Go to {url} and sign in.",
        "The docs are at {url}.",
        "Email us at {email}.",
        "Send your receipt to {email}.",
        "Reach the team at {email} anytime.",
        "Open {local} in your browser.",
        "The app runs at {local}.",
        "Your router's page is at {ip}.",
        "Set the DNS server to {ip}.",
        "Visit {domain} for the full list.",
        "Check {url} for updates.",
        "Forward the invoice to {email} and we'll sort it out.",
        "The health check is served at {local}.",
        "I found it on {domain}.",
        "Bookmark {url} for later.",
    ),
    "version": (
        "Upgrade to {product} {semver} for the fix.",
        "This needs {product} {semver} or later.",
        "I'm running {product} v{semver}.",
        "The bug was fixed in v{semver}.",
        "Update your phone to {os} {semver}.",
        "It works on {os} {osver} and up.",
        "Version {semver} drops support for the old API.",
        "Pin the package to {semver} for now.",
        "The release notes for {semver} list the changes.",
        "Install {product} {semver}, then rerun the script.",
        "The server speaks HTTP/2 and HTTP/3.",
        "GPT-4 and GPT-3.5 both handle this.",
        "Enable TLS 1.3 in the settings.",
        "The site supports IPv6 now.",
        "You need a USB 3.2 port for full speed.",
        "The headphones use Bluetooth 5.3.",
        "Ubuntu 22.04 is the long-term release.",
        "The router supports Wi-Fi 6E.",
        "Roll back to {semver} if it breaks.",
        "This changed between v{semver} and v{semver}.",
        "ES2022 added top-level await.",
        "Windows 11 requires a TPM 2.0 chip.",
    ),
    "year": (
        "The company was founded in {year}.",
        "It's been popular since {ryear}.",
        "The style was big in the {decade}.",
        "The law passed in {year} and took effect in {year}.",
        "Prices have doubled since {ryear}.",
        "The {season} season was a record.",
        "The city was founded in {bc} BC.",
        "The temple dates to {bc} BC.",
        "The castle was built in {oldyear}.",
        "It was the best album of '{yy}.",
        "Back in the {decade}, this was normal.",
        "Between {oldyear} and {ryear}, the population doubled.",
        "The report covers {yspan}.",
        "The {ryear} model is the one to get.",
        "I'd compare {ryear} with {ryear}.",
        "The tax year {ryear} ends in April.",
        "The treaty was signed in AD {oldyear}.",
        "The film came out in {year}.",
        "By {ryear}, most cars will be electric.",
        "The {year} census counted every household.",
        "She graduated in {ryear} and moved to {city}.",
        "The building survived the {year} earthquake.",
    ),
}

CLASSES = tuple(sorted(TEMPLATES))
_HOLE = re.compile(r"\{(\w+)\}")
_DOUBLE_PERIOD = re.compile(r"(?<!\.)\.\.(?!\.)")


@dataclass(frozen=True)
class Sentence:
    category: str
    template: str
    written: str


def fill(template: str, rng: random.Random) -> str:
    written = _HOLE.sub(lambda m: SLOTS[m[1]](rng), template)
    # "at 5 p.m." ends its sentence with the abbreviation's own period, as people write it.
    return _DOUBLE_PERIOD.sub(".", written)


def generate(
    per_class: int = 200, seed: int = 0, classes: Sequence[str] = CLASSES
) -> list[Sentence]:
    """`per_class` distinct sentences for each class (fewer only if its templates cannot make
    that many), none written twice across classes; the same for the same arguments."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for category in classes:
        rng = random.Random(f"{seed}:{category}")
        templates = TEMPLATES[category]
        made = 0
        for attempt in range(per_class * 40):
            if made == per_class:
                break
            # Every template once before any twice, then drawn at random.
            template = templates[attempt] if attempt < len(templates) else rng.choice(templates)
            written = fill(template, rng)
            if written in seen:
                continue
            seen.add(written)
            out.append(Sentence(category, template, written))
            made += 1
    return out
