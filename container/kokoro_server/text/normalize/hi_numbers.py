"""Hindi numbers in words (num2words has none): 0-99 are words of their own, then सौ,
हज़ार, लाख and करोड़ in the Indian grouping; years 1100-1999 in hundreds; clock fractions."""

from __future__ import annotations

UNITS = [
    "शून्य",
    "एक",
    "दो",
    "तीन",
    "चार",
    "पाँच",
    "छह",
    "सात",
    "आठ",
    "नौ",
    "दस",
    "ग्यारह",
    "बारह",
    "तेरह",
    "चौदह",
    "पंद्रह",
    "सोलह",
    "सत्रह",
    "अठारह",
    "उन्नीस",
    "बीस",
    "इक्कीस",
    "बाईस",
    "तेईस",
    "चौबीस",
    "पच्चीस",
    "छब्बीस",
    "सत्ताईस",
    "अट्ठाईस",
    "उनतीस",
    "तीस",
    "इकतीस",
    "बत्तीस",
    "तैंतीस",
    "चौंतीस",
    "पैंतीस",
    "छत्तीस",
    "सैंतीस",
    "अड़तीस",
    "उनतालीस",
    "चालीस",
    "इकतालीस",
    "बयालीस",
    "तैंतालीस",
    "चवालीस",
    "पैंतालीस",
    "छियालीस",
    "सैंतालीस",
    "अड़तालीस",
    "उनचास",
    "पचास",
    "इक्यावन",
    "बावन",
    "तिरपन",
    "चौवन",
    "पचपन",
    "छप्पन",
    "सत्तावन",
    "अट्ठावन",
    "उनसठ",
    "साठ",
    "इकसठ",
    "बासठ",
    "तिरसठ",
    "चौंसठ",
    "पैंसठ",
    "छियासठ",
    "सड़सठ",
    "अड़सठ",
    "उनहत्तर",
    "सत्तर",
    "इकहत्तर",
    "बहत्तर",
    "तिहत्तर",
    "चौहत्तर",
    "पचहत्तर",
    "छिहत्तर",
    "सतहत्तर",
    "अठहत्तर",
    "उन्यासी",
    "अस्सी",
    "इक्यासी",
    "बयासी",
    "तिरासी",
    "चौरासी",
    "पचासी",
    "छियासी",
    "सत्तासी",
    "अट्ठासी",
    "नवासी",
    "नब्बे",
    "इक्यानवे",
    "बानवे",
    "तिरानवे",
    "चौरानवे",
    "पचानवे",
    "छियानवे",
    "सत्तानवे",
    "अट्ठानवे",
    "निन्यानवे",
]
_SCALES = ((10**7, "करोड़"), (10**5, "लाख"), (1000, "हज़ार"), (100, "सौ"))
ORDINALS = {1: "पहला", 2: "दूसरा", 3: "तीसरा", 4: "चौथा", 6: "छठा"}


def cardinal(number: int) -> str:
    if number < 100:
        return UNITS[number]
    for value, name in _SCALES:
        if number >= value:
            head, rest = divmod(number, value)
            said = f"{cardinal(head)} {name}"
            return f"{said} {cardinal(rest)}" if rest else said
    raise AssertionError(number)  # unreachable: every number >= 100 has a scale


def year(number: int) -> str:
    """1947 -> 'उन्नीस सौ सैंतालीस'; 2024 -> 'दो हज़ार चौबीस'."""
    if 1100 <= number <= 1999:
        head, rest = divmod(number, 100)
        return f"{UNITS[head]} सौ" + (f" {UNITS[rest]}" if rest else "")
    return cardinal(number)


def ordinal(number: int, suffix: str) -> str:
    """'5वीं' -> 'पाँचवीं', '3रा' -> 'तीसरा', '1ला' -> 'पहला'."""
    if number in ORDINALS:
        said = ORDINALS[number]
        return said[:-1] + suffix[-1] if suffix[-1] in "ीे" else said
    return cardinal(number) + suffix


def clock(hour: int, minute: int) -> str:
    """9:30 -> 'साढ़े नौ', 2:15 -> 'सवा दो', 8:45 -> 'पौने नौ', 1:30 -> 'डेढ़'."""
    hour12 = hour % 12 or 12
    following = hour12 % 12 + 1
    if minute == 0:
        return cardinal(hour12)
    if minute == 30:
        return {1: "डेढ़", 2: "ढाई"}.get(hour12, f"साढ़े {cardinal(hour12)}")
    if minute == 15:
        return f"सवा {cardinal(hour12)}"
    if minute == 45:
        return "पौने एक" if following == 1 else f"पौने {cardinal(following)}"
    return f"{cardinal(hour12)} बजकर {cardinal(minute)} मिनट"
