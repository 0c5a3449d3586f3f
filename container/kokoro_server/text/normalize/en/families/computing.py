"""English rules: e-mail and web addresses, IP addresses and ports, key combinations,
files, versions, codes read character by character."""

from __future__ import annotations

import re

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en import verbalize as v
from kokoro_server.text.normalize.en.technical import technical_rules


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    return (
        rule("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", lambda m: say.say_address(m[0])),
        rule(
            "url",
            r"(?:(?:https?|s?ftp)://|www\.)[^\s]*[^\s.,;:!?)\]'\"”’]"
            r"|localhost:\d{2,5}(?:/[^\s]*[^\s.,;:!?)\]'\"”’])?"
            r"|[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|ai|dev|edu|gov|app|info|co\.uk|co|design"
            r"|uk|us|ca|de|me|tv|ly|so|xyz|cloud|tech|site)(?:/[^\s]*[^\s.,;:!?)\]'\"”’])?",
            say.say_url,
        ),
        rule("ip", r"(?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?::(?P<port>\d{2,5}))?", say.say_ip),
        rule("keys", say.KEY_COMBO, say.say_keys, flags=re.IGNORECASE),
        *technical_rules(british),
        rule(
            "protocol-version",
            r"(?P<p>HTTPS?|TLS|SSL|SMTP|SOCKS)/(?P<v>\d(?:\.\d)?)",
            say.say_protocol_version,
        ),
        rule("ipv", r"IPv(?P<n>[46])", lambda m: "I P V " + v.cardinal(m["n"])),
        rule("x-version", r"(?P<n>\d+(?:\.\d+)?)\.x", say.say_x_version),
        rule("port", r"(?<=\s):(?P<p>\d{2,5})", say.say_port, bounded=False),
        rule(
            "port-number",
            r"(?P<w>port(?: to| is| of)?|listens on|listening on)\s`?(?P<p>\d{2,5})`?",
            lambda m: f"{m['w']} {v.in_pairs(m['p'])}",
            flags=re.IGNORECASE,
        ),
        rule("scheme", r"(?P<s>https?|s?ftp)://(?=[\s,.;:!?)]|$)", say.say_scheme, bounded=False),
        rule("extension", r"x(?P<n>\d{2,5})", say.say_extension),
        # A dotfile's name: a dot, then a lowercase name, not after a word or another dot.
        rule("dotfile", r"(?<![\w.])\.[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*", say.say_dotfile),
        rule(
            "file",
            r"(?P<stem>[\w-]+)\.(?P<ext>json|log|py|js|ts|txt|md|csv|yaml|yml|toml|html|css|sh"
            r"|pdf|zip|exe|env|cfg|ini|xml|sql|rs|go|java|rb|tsx|jsx|lock|png|jpg|svg)",
            say.say_file,
        ),
        rule(
            "phone",
            r"(?:\+\d{1,3}[ .-]?|1[ .-])?(?:\(\d{3}\)[ .-]?|\d{3}[.-])\d{3}[.-]\d{4}"
            r"|\+\d{1,3}(?:[ .-]\d{2,4}){2,4}|\d{3}-\d{4}",
            say.say_phone,
        ),
        rule("hex", r"0x[0-9a-fA-F]+", lambda m: "zero x " + say.spell_code(m[0][2:])),
        rule(
            "version",
            r"(?P<prefix>[vV])?(?P<v>(?<=[vV])\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*)"
            r"(?P<suffix>-(?:alpha|beta|rc|pre)[.\d]*)?",
            say.say_version,
        ),
        rule("code-sequence", r"[A-Z\d]+(?:\s[A-Z\d]+){2,}", say.say_code_sequence),
        rule("alnum", r"(?=[A-Z\d-]*\d)(?=[\d-]*[A-Z])[A-Z\d]{2,}(?:-[A-Z\d]+)*", say.say_alnum),
        rule("digit-groups", r"\d{3,4}(?:\s\d{2,4})+", say.say_digit_groups),
        rule("code-number", r"\d{3,}", say.say_code_number),
        rule("hash-code", r"#(?=[A-Z]{1,3}-?\d)", lambda m: "number ", bounded=False),
        rule("hashtag", r"#(?P<tag>[A-Za-z]\w+)", say.say_camel_hashtag),
    )
